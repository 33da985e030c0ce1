package io.varve.raft.core.message;

/** Kafka's BeginQuorumEpochRequest: a new leader announces itself to a voter. */
public record BeginQuorumEpochRequest(String clusterId, int voterId, int leaderEpoch, int leaderId)
        implements RaftRequest {}
