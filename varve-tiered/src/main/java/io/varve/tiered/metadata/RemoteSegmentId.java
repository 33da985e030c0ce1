package io.varve.tiered.metadata;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * Identity of one uploaded copy of a segment. A fresh {@link Uuid} per upload attempt means a retried or
 * re-elected upload of the same offsets never collides with the objects of an earlier, abandoned attempt.
 */
public record RemoteSegmentId(TopicIdPartition topicIdPartition, Uuid id) {
    public RemoteSegmentId {
        Objects.requireNonNull(topicIdPartition, "topicIdPartition");
        Objects.requireNonNull(id, "id");
    }

    public static RemoteSegmentId generate(TopicIdPartition topicIdPartition) {
        return new RemoteSegmentId(topicIdPartition, Uuid.randomUuid());
    }

    @Override
    public String toString() {
        return topicIdPartition + "/" + id;
    }
}
