package io.varve.coordinator.group.assignor;

import org.apache.kafka.common.Uuid;

/** A partition of a topic named by id, ordered by topic id then partition. */
record TopicPartitionId(Uuid topicId, int partition) implements Comparable<TopicPartitionId> {
    @Override
    public int compareTo(TopicPartitionId o) {
        int c = topicId.compareTo(o.topicId);
        return c != 0 ? c : Integer.compare(partition, o.partition);
    }
}
