package io.varve.raft.core.message;

/** Kafka's AddVoterResponse (error and message), with the responder's view of the leader like every response here. */
public record AddVoterResponse(RaftError error, String errorMessage, int leaderId, int leaderEpoch)
        implements RaftResponse {}
