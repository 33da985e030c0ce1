package io.varve.metadata.controller;

/**
 * Settings of the {@link QuorumController}.
 *
 * @param defaultNumPartitions     {@code num.partitions}: partitions of a topic created with -1
 * @param defaultReplicationFactor {@code default.replication.factor}: replicas when created with -1
 * @param maxPendingRequests       bound of requests queued or waiting for commit; more are refused
 * @param brokerSessionTimeoutMs   {@code broker.session.timeout.ms}: a broker without a heartbeat for this long
 *                                 is fenced
 */
public record ControllerConfig(
        int defaultNumPartitions, short defaultReplicationFactor, int maxPendingRequests, long brokerSessionTimeoutMs) {

    public static final int DEFAULT_MAX_PENDING_REQUESTS = 10_000;
    public static final long DEFAULT_BROKER_SESSION_TIMEOUT_MS = 9_000;

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
        if (brokerSessionTimeoutMs <= 0) {
            throw new IllegalArgumentException("broker.session.timeout.ms must be > 0: " + brokerSessionTimeoutMs);
        }
    }

    public ControllerConfig(int defaultNumPartitions, short defaultReplicationFactor, int maxPendingRequests) {
        this(defaultNumPartitions, defaultReplicationFactor, maxPendingRequests, DEFAULT_BROKER_SESSION_TIMEOUT_MS);
    }

    public ControllerConfig(int defaultNumPartitions, short defaultReplicationFactor) {
        this(defaultNumPartitions, defaultReplicationFactor, DEFAULT_MAX_PENDING_REQUESTS);
    }

    public ControllerConfig withBrokerSessionTimeoutMs(long timeoutMs) {
        return new ControllerConfig(defaultNumPartitions, defaultReplicationFactor, maxPendingRequests, timeoutMs);
    }

    /** Kafka's defaults: one partition, one replica. */
    public static ControllerConfig defaults() {
        return new ControllerConfig(1, (short) 1);
    }
}
