package io.varve.tiered.manager;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Settings of the {@link RemoteLogManager}, from Kafka's broker keys.
 *
 * @param copierThreads           {@code remote.log.manager.copier.thread.pool.size} (10): partitions uploading (or
 *                                expiring) at once
 * @param taskIntervalMs          {@code remote.log.manager.task.interval.ms} (30000): how often each tiered
 *                                partition is checked for segments to upload or delete
 * @param copyMaxBytesPerSecond   {@code remote.log.manager.copy.max.bytes.per.second} (unlimited)
 * @param backoff                 {@code remote.log.manager.task.retry.backoff.ms} (500),
 *                                {@code .backoff.max.ms} (30000), {@code .jitter} (0.2)
 * @param pause                   test only ({@code varve.test.remote.log.pause.at} / {@code .marker}): where to stop
 */
public record RemoteLogManagerConfig(
        int copierThreads,
        long taskIntervalMs,
        long copyMaxBytesPerSecond,
        RetryBackoff backoff,
        Optional<TestPause> pause) {

    public static final int DEFAULT_COPIER_THREADS = 10;
    public static final long DEFAULT_TASK_INTERVAL_MS = 30_000L;
    public static final long DEFAULT_RETRY_BACKOFF_MS = 500L;
    public static final long DEFAULT_RETRY_BACKOFF_MAX_MS = 30_000L;
    public static final double DEFAULT_RETRY_JITTER = 0.2;

    /**
     * A test-only fault hook: the remote log manager stops for good once it reaches {@code point}, after writing
     * {@code markerFile}, so a test can SIGKILL the broker exactly there. Points: {@value #AFTER_COPY} (a segment's
     * objects are written, COPY_SEGMENT_FINISHED is not) and {@value #AFTER_DELETE_STARTED} (DELETE_SEGMENT_STARTED
     * is recorded, the objects are not deleted yet).
     */
    public record TestPause(String point, Path markerFile) {
        public static final String AFTER_COPY = "after-copy";
        public static final String AFTER_DELETE_STARTED = "after-delete-started";

        public TestPause {
            if (!point.equals(AFTER_COPY) && !point.equals(AFTER_DELETE_STARTED)) {
                throw new IllegalArgumentException(
                        "unknown pause point '" + point + "': " + AFTER_COPY + " or " + AFTER_DELETE_STARTED);
            }
        }
    }

    public RemoteLogManagerConfig {
        if (copierThreads < 1 || taskIntervalMs < 1 || copyMaxBytesPerSecond < 1) {
            throw new IllegalArgumentException("copierThreads, taskIntervalMs and copyMaxBytesPerSecond must be "
                    + "positive: " + copierThreads + ", " + taskIntervalMs + ", " + copyMaxBytesPerSecond);
        }
    }

    public static RemoteLogManagerConfig defaults() {
        return new RemoteLogManagerConfig(
                DEFAULT_COPIER_THREADS,
                DEFAULT_TASK_INTERVAL_MS,
                CopyThrottle.UNLIMITED,
                new RetryBackoff(DEFAULT_RETRY_BACKOFF_MS, DEFAULT_RETRY_BACKOFF_MAX_MS, DEFAULT_RETRY_JITTER),
                Optional.empty());
    }

    public RemoteLogManagerConfig withTaskIntervalMs(long v) {
        return new RemoteLogManagerConfig(copierThreads, v, copyMaxBytesPerSecond, backoff, pause);
    }

    public RemoteLogManagerConfig withCopyMaxBytesPerSecond(long v) {
        return new RemoteLogManagerConfig(copierThreads, taskIntervalMs, v, backoff, pause);
    }

    public RemoteLogManagerConfig withBackoff(RetryBackoff v) {
        return new RemoteLogManagerConfig(copierThreads, taskIntervalMs, copyMaxBytesPerSecond, v, pause);
    }
}
