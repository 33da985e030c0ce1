package io.varve.raft.core.message;

/** Kafka's EndQuorumEpochResponse for one partition. */
public record EndQuorumEpochResponse(RaftError error, int leaderId, int leaderEpoch) implements RaftResponse {}
