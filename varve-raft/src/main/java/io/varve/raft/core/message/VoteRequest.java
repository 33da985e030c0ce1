package io.varve.raft.core.message;

/**
 * Kafka's VoteRequest (v2, KIP-996). For a real vote {@code replicaEpoch} is the candidate's new epoch;
 * for a pre-vote ({@code preVote}) it is the prospective's current epoch, which the receiver does not
 * adopt. {@code lastOffset} is the candidate's log end offset and {@code lastOffsetEpoch} the epoch of
 * its last entry.
 */
public record VoteRequest(
        String clusterId,
        int voterId,
        int replicaEpoch,
        int replicaId,
        int lastOffsetEpoch,
        long lastOffset,
        boolean preVote)
        implements RaftRequest {

    public OffsetAndEpoch candidateLogEnd() {
        return new OffsetAndEpoch(lastOffset, lastOffsetEpoch);
    }
}
