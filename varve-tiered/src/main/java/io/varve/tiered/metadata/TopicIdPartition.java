package io.varve.tiered.metadata;

import java.util.Objects;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/** A partition named by both its topic id (stable across re-creation) and its topic name (readable keys). */
public record TopicIdPartition(Uuid topicId, TopicPartition topicPartition) {
    public TopicIdPartition {
        Objects.requireNonNull(topicId, "topicId");
        Objects.requireNonNull(topicPartition, "topicPartition");
        if (topicId.equals(Uuid.ZERO_UUID)) {
            throw new IllegalArgumentException("topic id must not be the zero UUID: " + topicPartition);
        }
    }

    public TopicIdPartition(Uuid topicId, String topic, int partition) {
        this(topicId, new TopicPartition(topic, partition));
    }

    public String topic() {
        return topicPartition.topic();
    }

    public int partition() {
        return topicPartition.partition();
    }

    @Override
    public String toString() {
        return topicPartition + "(" + topicId + ")";
    }
}
