package io.varve.raft.core.message;

/** Kafka's BeginQuorumEpochResponse for one partition. */
public record BeginQuorumEpochResponse(RaftError error, int leaderId, int leaderEpoch) implements RaftResponse {}
