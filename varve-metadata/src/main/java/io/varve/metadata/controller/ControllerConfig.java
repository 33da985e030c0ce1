package io.varve.metadata.controller;

/**
 * Settings of the {@link QuorumController}.
 *
 * @param defaultNumPartitions     {@code num.partitions}: partitions of a topic created with -1
 * @param defaultReplicationFactor {@code default.replication.factor}: replicas when created with -1
 * @param maxPendingRequests       bound of requests queued or waiting for commit; more are refused
 */
public record ControllerConfig(int defaultNumPartitions, short defaultReplicationFactor, int maxPendingRequests) {

    public static final int DEFAULT_MAX_PENDING_REQUESTS = 10_000;

    public ControllerConfig {
        if (defaultNumPartitions <= 0) {
            throw new IllegalArgumentException("num.partitions must be > 0: " + defaultNumPartitions);
        }
        if (defaultReplicationFactor <= 0) {
            throw new IllegalArgumentException("default.replication.factor must be > 0: " + defaultReplicationFactor);
        }
        if (maxPendingRequests <= 0) {
            throw new IllegalArgumentException("maxPendingRequests must be > 0: " + maxPendingRequests);
        }
    }

    public ControllerConfig(int defaultNumPartitions, short defaultReplicationFactor) {
        this(defaultNumPartitions, defaultReplicationFactor, DEFAULT_MAX_PENDING_REQUESTS);
    }

    /** Kafka's defaults: one partition, one replica. */
    public static ControllerConfig defaults() {
        return new ControllerConfig(1, (short) 1);
    }
}
