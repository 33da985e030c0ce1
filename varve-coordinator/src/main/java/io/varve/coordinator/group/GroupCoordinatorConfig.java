package io.varve.coordinator.group;

import java.util.List;

/**
 * The group coordinator's settings, with Kafka's key names in the comments and Kafka's defaults in {@link #defaults()}.
 *
 * @param classicMinSessionTimeoutMs   group.min.session.timeout.ms
 * @param classicMaxSessionTimeoutMs   group.max.session.timeout.ms
 * @param classicMaxSize               group.max.size
 * @param initialRebalanceDelayMs      group.initial.rebalance.delay.ms
 * @param consumerSessionTimeoutMs     group.consumer.session.timeout.ms
 * @param consumerHeartbeatIntervalMs  group.consumer.heartbeat.interval.ms
 * @param consumerMaxSize              group.consumer.max.size
 * @param consumerAssignors            group.consumer.assignors (short names; the first is the default)
 * @param offsetsRetentionMs           offsets.retention.minutes, in ms
 * @param offsetsRetentionCheckIntervalMs offsets.retention.check.interval.ms
 * @param offsetMetadataMaxBytes       offset.metadata.max.bytes
 * @param migrationPolicy              group.consumer.migration.policy
 */
public record GroupCoordinatorConfig(
        int classicMinSessionTimeoutMs,
        int classicMaxSessionTimeoutMs,
        int classicMaxSize,
        int initialRebalanceDelayMs,
        int consumerSessionTimeoutMs,
        int consumerHeartbeatIntervalMs,
        int consumerMaxSize,
        List<String> consumerAssignors,
        long offsetsRetentionMs,
        long offsetsRetentionCheckIntervalMs,
        int offsetMetadataMaxBytes,
        MigrationPolicy migrationPolicy) {

    public GroupCoordinatorConfig {
        consumerAssignors = List.copyOf(consumerAssignors);
        if (migrationPolicy == null) {
            throw new IllegalArgumentException("group.consumer.migration.policy must be set");
        }
        if (classicMinSessionTimeoutMs > classicMaxSessionTimeoutMs) {
            throw new IllegalArgumentException("group.min.session.timeout.ms " + classicMinSessionTimeoutMs
                    + " exceeds group.max.session.timeout.ms " + classicMaxSessionTimeoutMs);
        }
        if (consumerHeartbeatIntervalMs >= consumerSessionTimeoutMs) {
            throw new IllegalArgumentException("group.consumer.heartbeat.interval.ms " + consumerHeartbeatIntervalMs
                    + " must be lower than group.consumer.session.timeout.ms " + consumerSessionTimeoutMs);
        }
        if (consumerAssignors.isEmpty()) {
            throw new IllegalArgumentException("group.consumer.assignors must name at least one assignor");
        }
        if (classicMaxSize < 1
                || consumerMaxSize < 1
                || offsetsRetentionMs < 1
                || offsetsRetentionCheckIntervalMs < 1
                || initialRebalanceDelayMs < 0
                || offsetMetadataMaxBytes < 0) {
            throw new IllegalArgumentException("group coordinator settings out of range: " + this);
        }
    }

    public static GroupCoordinatorConfig defaults() {
        return new GroupCoordinatorConfig(
                6000,
                1_800_000,
                Integer.MAX_VALUE,
                3000,
                45_000,
                5000,
                Integer.MAX_VALUE,
                List.of("uniform", "range"),
                10080L * 60_000,
                600_000L,
                4096,
                MigrationPolicy.BIDIRECTIONAL);
    }

    public String defaultAssignor() {
        return consumerAssignors.get(0);
    }

    public GroupCoordinatorConfig withInitialRebalanceDelayMs(int v) {
        return new GroupCoordinatorConfig(
                classicMinSessionTimeoutMs,
                classicMaxSessionTimeoutMs,
                classicMaxSize,
                v,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs,
                consumerMaxSize,
                consumerAssignors,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetMetadataMaxBytes,
                migrationPolicy);
    }

    public GroupCoordinatorConfig withSessionTimeoutBounds(int minMs, int maxMs) {
        return new GroupCoordinatorConfig(
                minMs,
                maxMs,
                classicMaxSize,
                initialRebalanceDelayMs,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs,
                consumerMaxSize,
                consumerAssignors,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetMetadataMaxBytes,
                migrationPolicy);
    }

    public GroupCoordinatorConfig withMaxSizes(int classic, int consumer) {
        return new GroupCoordinatorConfig(
                classicMinSessionTimeoutMs,
                classicMaxSessionTimeoutMs,
                classic,
                initialRebalanceDelayMs,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs,
                consumer,
                consumerAssignors,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetMetadataMaxBytes,
                migrationPolicy);
    }

    public GroupCoordinatorConfig withConsumerTimeouts(int sessionTimeoutMs, int heartbeatIntervalMs) {
        return new GroupCoordinatorConfig(
                classicMinSessionTimeoutMs,
                classicMaxSessionTimeoutMs,
                classicMaxSize,
                initialRebalanceDelayMs,
                sessionTimeoutMs,
                heartbeatIntervalMs,
                consumerMaxSize,
                consumerAssignors,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetMetadataMaxBytes,
                migrationPolicy);
    }

    public GroupCoordinatorConfig withOffsetsRetention(long retentionMs, long checkIntervalMs) {
        return new GroupCoordinatorConfig(
                classicMinSessionTimeoutMs,
                classicMaxSessionTimeoutMs,
                classicMaxSize,
                initialRebalanceDelayMs,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs,
                consumerMaxSize,
                consumerAssignors,
                retentionMs,
                checkIntervalMs,
                offsetMetadataMaxBytes,
                migrationPolicy);
    }

    public GroupCoordinatorConfig withMigrationPolicy(MigrationPolicy policy) {
        return new GroupCoordinatorConfig(
                classicMinSessionTimeoutMs,
                classicMaxSessionTimeoutMs,
                classicMaxSize,
                initialRebalanceDelayMs,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs,
                consumerMaxSize,
                consumerAssignors,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetMetadataMaxBytes,
                policy);
    }
}
