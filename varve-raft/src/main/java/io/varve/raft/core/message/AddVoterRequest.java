package io.varve.raft.core.message;

/** Kafka's AddVoterRequest (KIP-853), ids only: no directory id or listeners yet. Sent to the leader by an admin. */
public record AddVoterRequest(String clusterId, int voterId) implements RaftRequest {}
