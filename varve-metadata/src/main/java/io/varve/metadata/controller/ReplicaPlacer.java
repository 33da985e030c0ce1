package io.varve.metadata.controller;

import java.util.List;

/** Chooses the replicas of new partitions. Pure: the same inputs give the same placement. */
public interface ReplicaPlacer {

    /** A broker that can take replicas; {@code rack} is null when the broker has none. */
    record Broker(int id, String rack) {}

    /**
     * @param brokers    usable brokers (registered, unfenced, not shutting down), ascending by id; at least
     *                   {@code replicationFactor} of them
     * @param startIndex a rotating cursor so that consecutive topics do not all lead on one broker
     * @return for each partition (index = partition id) its distinct replicas, the first being the preferred leader
     */
    List<List<Integer>> place(List<Broker> brokers, int numPartitions, int replicationFactor, int startIndex);
}
