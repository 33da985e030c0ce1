package io.varve.raft.core.message;

/** Kafka's UpdateRaftVoterResponse: the error and the responder's view of the leader. */
public record UpdateVoterResponse(RaftError error, int leaderId, int leaderEpoch) implements RaftResponse {}
