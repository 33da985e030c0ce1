package io.varve.raft.core.message;

/** Kafka's RemoveVoterResponse (error and message), with the responder's view of the leader like every response here. */
public record RemoveVoterResponse(RaftError error, String errorMessage, int leaderId, int leaderEpoch)
        implements RaftResponse {}
