package io.varve.raft.core.message;

/** Kafka's VoteResponse for one partition. */
public record VoteResponse(RaftError error, int leaderId, int leaderEpoch, boolean voteGranted)
        implements RaftResponse {}
