package io.varve.storage;

import io.varve.storage.cleaner.CleanerConfig;

/**
 * Broker-level settings of the log manager's background work, with Kafka's key names and defaults.
 *
 * @param retentionCheckIntervalMs            {@code log.retention.check.interval.ms} (300000): how often retention
 *                                            and segment.ms rolls run
 * @param checkpointIntervalMs                {@code log.flush.offset.checkpoint.interval.ms} (60000): how often the
 *                                            recovery-point and log-start-offset checkpoints are written
 * @param flushSchedulerIntervalMs            {@code log.flush.scheduler.interval.ms} (Long.MAX_VALUE = never): how
 *                                            often logs whose flush.ms elapsed are fsynced
 * @param producerIdExpirationMs              {@code producer.id.expiration.ms} (86400000)
 * @param producerIdExpirationCheckIntervalMs {@code producer.id.expiration.check.interval.ms} (600000)
 * @param backgroundTasks                     false to run nothing in the background: tests then drive
 *                                            retention, cleaning, flushes and checkpoints through LogManager's
 *                                            methods
 * @param cleaner                             the log cleaner's settings ({@code log.cleaner.*})
 * @param deferOpeningCleanLogs               true (the default) to list the logs of a cleanly shut down log dir
 *                                            at start-up and open each on first use or in the background
 *                                            ({@link LogManager#openDeferredLogsInBackground}); false to open all
 *                                            before the constructor returns
 * @param highWatermarkCheckpointIntervalMs   {@code replica.high.watermark.checkpoint.interval.ms} (5000): how often
 *                                            the {@code replication-offset-checkpoint} of each log dir is written
 */
public record LogManagerConfig(
        long retentionCheckIntervalMs,
        long checkpointIntervalMs,
        long flushSchedulerIntervalMs,
        long producerIdExpirationMs,
        long producerIdExpirationCheckIntervalMs,
        boolean backgroundTasks,
        CleanerConfig cleaner,
        boolean deferOpeningCleanLogs,
        long highWatermarkCheckpointIntervalMs) {

    public static final long DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS = 5_000L;

    public LogManagerConfig {
        if (retentionCheckIntervalMs < 1
                || checkpointIntervalMs < 1
                || highWatermarkCheckpointIntervalMs < 1
                || flushSchedulerIntervalMs < 1
                || producerIdExpirationMs < 1
                || producerIdExpirationCheckIntervalMs < 1) {
            throw new IllegalArgumentException("Log manager intervals must be at least 1 ms: " + this);
        }
        if (cleaner == null) {
            throw new IllegalArgumentException("cleaner must not be null");
        }
    }

    /** Settings with the default high-watermark checkpoint interval. */
    public LogManagerConfig(
            long retentionCheckIntervalMs,
            long checkpointIntervalMs,
            long flushSchedulerIntervalMs,
            long producerIdExpirationMs,
            long producerIdExpirationCheckIntervalMs,
            boolean backgroundTasks,
            CleanerConfig cleaner,
            boolean deferOpeningCleanLogs) {
        this(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                producerIdExpirationMs,
                producerIdExpirationCheckIntervalMs,
                backgroundTasks,
                cleaner,
                deferOpeningCleanLogs,
                DEFAULT_HIGH_WATERMARK_CHECKPOINT_INTERVAL_MS);
    }

    /** Settings that defer opening clean logs. */
    public LogManagerConfig(
            long retentionCheckIntervalMs,
            long checkpointIntervalMs,
            long flushSchedulerIntervalMs,
            long producerIdExpirationMs,
            long producerIdExpirationCheckIntervalMs,
            boolean backgroundTasks,
            CleanerConfig cleaner) {
        this(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                producerIdExpirationMs,
                producerIdExpirationCheckIntervalMs,
                backgroundTasks,
                cleaner,
                true);
    }

    /** Settings with the default cleaner. */
    public LogManagerConfig(
            long retentionCheckIntervalMs,
            long checkpointIntervalMs,
            long flushSchedulerIntervalMs,
            long producerIdExpirationMs,
            long producerIdExpirationCheckIntervalMs,
            boolean backgroundTasks) {
        this(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                producerIdExpirationMs,
                producerIdExpirationCheckIntervalMs,
                backgroundTasks,
                CleanerConfig.defaults());
    }

    public static LogManagerConfig defaults() {
        return new LogManagerConfig(300_000L, 60_000L, Long.MAX_VALUE, 86_400_000L, 600_000L, true);
    }

    /** These settings with no background tasks (tests drive the work). */
    public LogManagerConfig withoutBackgroundTasks() {
        return new LogManagerConfig(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                producerIdExpirationMs,
                producerIdExpirationCheckIntervalMs,
                false,
                cleaner,
                deferOpeningCleanLogs,
                highWatermarkCheckpointIntervalMs);
    }

    public LogManagerConfig withProducerIdExpirationMs(long v) {
        return new LogManagerConfig(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                v,
                producerIdExpirationCheckIntervalMs,
                backgroundTasks,
                cleaner,
                deferOpeningCleanLogs,
                highWatermarkCheckpointIntervalMs);
    }

    public LogManagerConfig withCleaner(CleanerConfig v) {
        return new LogManagerConfig(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                producerIdExpirationMs,
                producerIdExpirationCheckIntervalMs,
                backgroundTasks,
                v,
                deferOpeningCleanLogs,
                highWatermarkCheckpointIntervalMs);
    }

    public LogManagerConfig withDeferOpeningCleanLogs(boolean v) {
        return new LogManagerConfig(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                producerIdExpirationMs,
                producerIdExpirationCheckIntervalMs,
                backgroundTasks,
                cleaner,
                v,
                highWatermarkCheckpointIntervalMs);
    }

    public LogManagerConfig withHighWatermarkCheckpointIntervalMs(long v) {
        return new LogManagerConfig(
                retentionCheckIntervalMs,
                checkpointIntervalMs,
                flushSchedulerIntervalMs,
                producerIdExpirationMs,
                producerIdExpirationCheckIntervalMs,
                backgroundTasks,
                cleaner,
                deferOpeningCleanLogs,
                v);
    }
}
