package io.varve.raft.core.message;

import java.util.List;

/**
 * Kafka's EndQuorumEpochRequest: a leader that resigns tells the voters, best successor first
 * ({@code preferredSuccessors}, ordered by how far each has replicated).
 */
public record EndQuorumEpochRequest(String clusterId, int leaderEpoch, int leaderId, List<Integer> preferredSuccessors)
        implements RaftRequest {

    public EndQuorumEpochRequest {
        preferredSuccessors = List.copyOf(preferredSuccessors);
    }
}
