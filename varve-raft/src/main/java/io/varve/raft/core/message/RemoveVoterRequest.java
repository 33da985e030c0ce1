package io.varve.raft.core.message;

/** Kafka's RemoveVoterRequest (KIP-853), ids only. Sent to the leader by an admin. */
public record RemoveVoterRequest(String clusterId, int voterId) implements RaftRequest {}
