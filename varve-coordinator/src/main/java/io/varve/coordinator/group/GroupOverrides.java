package io.varve.coordinator.group;

/**
 * One group's own settings (Kafka's group configs: {@code kafka-configs --entity-type groups}), as the broker resolved
 * them from the metadata image: each null where the group does not set it, so the broker-wide value applies. Values
 * lie within the broker-wide bounds already.
 *
 * @param consumerSessionTimeoutMs    consumer.session.timeout.ms
 * @param consumerHeartbeatIntervalMs consumer.heartbeat.interval.ms
 * @param shareSessionTimeoutMs       share.session.timeout.ms
 * @param shareHeartbeatIntervalMs    share.heartbeat.interval.ms
 * @param shareRecordLockDurationMs   share.record.lock.duration.ms
 * @param shareAutoOffsetReset        share.auto.offset.reset: latest, earliest or by_duration:&lt;ISO-8601&gt;
 * @param streamsSessionTimeoutMs     streams.session.timeout.ms
 * @param streamsHeartbeatIntervalMs  streams.heartbeat.interval.ms
 * @param streamsNumStandbyReplicas   streams.num.standby.replicas
 */
public record GroupOverrides(
        Integer consumerSessionTimeoutMs,
        Integer consumerHeartbeatIntervalMs,
        Integer shareSessionTimeoutMs,
        Integer shareHeartbeatIntervalMs,
        Integer shareRecordLockDurationMs,
        String shareAutoOffsetReset,
        Integer streamsSessionTimeoutMs,
        Integer streamsHeartbeatIntervalMs,
        Integer streamsNumStandbyReplicas) {

    public static final GroupOverrides NONE = new GroupOverrides(null, null, null, null, null, null, null, null, null);

    /** {@code value} if the group sets it, else the broker-wide {@code fallback}. */
    public static int or(Integer value, int fallback) {
        return value != null ? value : fallback;
    }
}
