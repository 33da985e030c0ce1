package io.varve.coordinator.group.share;

/**
 * The share group settings, Kafka's key names in the comments, Kafka's defaults in {@link #defaults()}.
 *
 * @param sessionTimeoutMs        group.share.session.timeout.ms
 * @param heartbeatIntervalMs     group.share.heartbeat.interval.ms
 * @param maxSize                 group.share.max.size
 * @param recordLockDurationMs    group.share.record.lock.duration.ms
 * @param deliveryCountLimit      group.share.delivery.count.limit
 * @param partitionMaxRecordLocks group.share.partition.max.record.locks
 * @param maxShareSessions        group.share.max.share.sessions
 */
public record ShareGroupConfig(
        int sessionTimeoutMs,
        int heartbeatIntervalMs,
        int maxSize,
        int recordLockDurationMs,
        int deliveryCountLimit,
        int partitionMaxRecordLocks,
        int maxShareSessions) {

    public ShareGroupConfig {
        if (heartbeatIntervalMs >= sessionTimeoutMs) {
            throw new IllegalArgumentException("group.share.heartbeat.interval.ms " + heartbeatIntervalMs
                    + " must be lower than group.share.session.timeout.ms " + sessionTimeoutMs);
        }
        if (maxSize < 1
                || recordLockDurationMs < 1
                || deliveryCountLimit < 1
                || partitionMaxRecordLocks < 1
                || maxShareSessions < 1) {
            throw new IllegalArgumentException("share group settings out of range: " + this);
        }
    }

    public static ShareGroupConfig defaults() {
        return new ShareGroupConfig(45_000, 5_000, 200, 30_000, 5, 2_000, 2_000);
    }

    public ShareGroupConfig withTimeouts(int sessionMs, int heartbeatMs) {
        return new ShareGroupConfig(
                sessionMs,
                heartbeatMs,
                maxSize,
                recordLockDurationMs,
                deliveryCountLimit,
                partitionMaxRecordLocks,
                maxShareSessions);
    }
}
