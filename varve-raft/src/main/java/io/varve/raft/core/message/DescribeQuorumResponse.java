package io.varve.raft.core.message;

import java.util.List;
import java.util.UUID;

/**
 * Kafka's DescribeQuorumResponse for one partition: the leader's view of every replica's progress, and the endpoints
 * of the voters it knows ({@code nodes}, Kafka's Nodes of v2).
 */
public record DescribeQuorumResponse(
        RaftError error,
        int leaderId,
        int leaderEpoch,
        long highWatermark,
        List<ReplicaProgress> currentVoters,
        List<ReplicaProgress> observers,
        List<VoterSet.Voter> nodes)
        implements RaftResponse {

    public DescribeQuorumResponse {
        currentVoters = List.copyOf(currentVoters);
        observers = List.copyOf(observers);
        nodes = List.copyOf(nodes);
    }

    public DescribeQuorumResponse(
            RaftError error,
            int leaderId,
            int leaderEpoch,
            long highWatermark,
            List<ReplicaProgress> currentVoters,
            List<ReplicaProgress> observers) {
        this(error, leaderId, leaderEpoch, highWatermark, currentVoters, observers, List.of());
    }

    /** Kafka's ReplicaState: {@code -1} for a timestamp never seen; the zero uuid for an unknown directory. */
    public record ReplicaProgress(
            int replicaId,
            UUID directoryId,
            long logEndOffset,
            long lastFetchTimestampMs,
            long lastCaughtUpTimestampMs) {

        public ReplicaProgress(
                int replicaId, long logEndOffset, long lastFetchTimestampMs, long lastCaughtUpTimestampMs) {
            this(
                    replicaId,
                    VoterSet.Voter.NO_DIRECTORY_ID,
                    logEndOffset,
                    lastFetchTimestampMs,
                    lastCaughtUpTimestampMs);
        }
    }
}
