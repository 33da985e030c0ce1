package io.varve.broker.replica;

import org.apache.kafka.common.TopicPartition;

/**
 * Told when this broker starts or stops leading a partition, on the metadata thread as image deltas are applied. A
 * coordinator loads its state of a partition on {@link #onBecomingLeader} and drops it on {@link #onResigning}.
 * Becoming leader is told only once the partition's local log is open; a new leader epoch of a partition this broker
 * still leads is told as another {@code onBecomingLeader} with the new epoch (no resignation in between).
 * Implementations must return quickly (hand loading to their own thread) and must not throw.
 */
public interface LeadershipListener {
    void onBecomingLeader(TopicPartition tp, int leaderEpoch);

    void onResigning(TopicPartition tp, int leaderEpoch);
}
