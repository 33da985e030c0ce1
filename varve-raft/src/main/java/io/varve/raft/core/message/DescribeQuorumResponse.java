package io.varve.raft.core.message;

import java.util.List;

/** Kafka's DescribeQuorumResponse for one partition: the leader's view of every replica's progress. */
public record DescribeQuorumResponse(
        RaftError error,
        int leaderId,
        int leaderEpoch,
        long highWatermark,
        List<ReplicaProgress> currentVoters,
        List<ReplicaProgress> observers)
        implements RaftResponse {

    public DescribeQuorumResponse {
        currentVoters = List.copyOf(currentVoters);
        observers = List.copyOf(observers);
    }

    /** Kafka's ReplicaState: {@code -1} for a timestamp never seen. */
    public record ReplicaProgress(
            int replicaId, long logEndOffset, long lastFetchTimestampMs, long lastCaughtUpTimestampMs) {}
}
