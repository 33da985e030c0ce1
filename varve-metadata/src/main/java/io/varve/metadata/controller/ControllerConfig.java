package io.varve.metadata.controller;

import io.varve.metadata.controller.replication.ReplicationPolicy;
import java.util.Objects;

/**
 * Settings of the {@link QuorumController}.
 *
 * @param defaultNumPartitions     {@code num.partitions}: partitions of a topic created with -1
 * @param defaultReplicationFactor {@code default.replication.factor}: replicas when created with -1
 * @param maxPendingRequests       bound of requests queued or waiting for commit; more are refused
 * @param brokerSessionTimeoutMs   {@code broker.session.timeout.ms}: a broker without a heartbeat for this long
 *                                 is fenced
 * @param replicationPolicy        the controller's {@code unclean.leader.election.enable} and
 *                                 {@code min.insync.replicas}, below topic and cluster-wide dynamic settings
 * @param leaderRebalance          {@code auto.leader.rebalance.enable} and {@code leader.imbalance.*}
 */
public record ControllerConfig(
        int defaultNumPartitions,
        short defaultReplicationFactor,
        int maxPendingRequests,
        long brokerSessionTimeoutMs,
        ReplicationPolicy replicationPolicy,
        LeaderRebalance leaderRebalance) {

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
        Objects.requireNonNull(replicationPolicy, "replicationPolicy");
        Objects.requireNonNull(leaderRebalance, "leaderRebalance");
    }

    public ControllerConfig(
            int defaultNumPartitions,
            short defaultReplicationFactor,
            int maxPendingRequests,
            long brokerSessionTimeoutMs) {
        this(
                defaultNumPartitions,
                defaultReplicationFactor,
                maxPendingRequests,
                brokerSessionTimeoutMs,
                ReplicationPolicy.DEFAULTS,
                LeaderRebalance.DEFAULTS);
    }

    public ControllerConfig(int defaultNumPartitions, short defaultReplicationFactor, int maxPendingRequests) {
        this(defaultNumPartitions, defaultReplicationFactor, maxPendingRequests, DEFAULT_BROKER_SESSION_TIMEOUT_MS);
    }

    public ControllerConfig(int defaultNumPartitions, short defaultReplicationFactor) {
        this(defaultNumPartitions, defaultReplicationFactor, DEFAULT_MAX_PENDING_REQUESTS);
    }

    public ControllerConfig withBrokerSessionTimeoutMs(long timeoutMs) {
        return new ControllerConfig(
                defaultNumPartitions,
                defaultReplicationFactor,
                maxPendingRequests,
                timeoutMs,
                replicationPolicy,
                leaderRebalance);
    }

    public ControllerConfig withReplicationPolicy(ReplicationPolicy policy) {
        return new ControllerConfig(
                defaultNumPartitions,
                defaultReplicationFactor,
                maxPendingRequests,
                brokerSessionTimeoutMs,
                policy,
                leaderRebalance);
    }

    public ControllerConfig withLeaderRebalance(LeaderRebalance rebalance) {
        return new ControllerConfig(
                defaultNumPartitions,
                defaultReplicationFactor,
                maxPendingRequests,
                brokerSessionTimeoutMs,
                replicationPolicy,
                rebalance);
    }

    /** Kafka's defaults: one partition, one replica. */
    public static ControllerConfig defaults() {
        return new ControllerConfig(1, (short) 1);
    }

    /**
     * @param enabled                      {@code auto.leader.rebalance.enable} (true)
     * @param checkIntervalMs              {@code leader.imbalance.check.interval.seconds} (300) in milliseconds
     * @param imbalancePerBrokerPercentage {@code leader.imbalance.per.broker.percentage} (10)
     */
    public record LeaderRebalance(boolean enabled, long checkIntervalMs, int imbalancePerBrokerPercentage) {

        public static final LeaderRebalance DEFAULTS = new LeaderRebalance(true, 300_000, 10);

        public LeaderRebalance {
            if (checkIntervalMs <= 0) {
                throw new IllegalArgumentException(
                        "leader.imbalance.check.interval.seconds must be > 0: " + checkIntervalMs + " ms");
            }
            if (imbalancePerBrokerPercentage < 0) {
                throw new IllegalArgumentException(
                        "leader.imbalance.per.broker.percentage must be >= 0: " + imbalancePerBrokerPercentage);
            }
        }
    }
}
