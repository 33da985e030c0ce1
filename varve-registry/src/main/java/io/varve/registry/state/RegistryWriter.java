package io.varve.registry.state;

/**
 * The node that takes the registry's writes, as it claimed them in the log: its id, the leader epoch of the log's
 * partition it claimed them in, and the base URL of its registry listener, where other nodes forward writes.
 */
public record RegistryWriter(int nodeId, int leaderEpoch, String url) {}
