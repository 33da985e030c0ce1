package io.varve.metadata.snapshot;

/**
 * When to write a metadata snapshot, as Kafka decides it: once the records committed since the last snapshot
 * reach {@code metadata.log.max.record.bytes.between.snapshots}, or once {@code
 * metadata.log.max.snapshot.interval.ms} passed since the last one and something was committed since (0 turns the
 * time trigger off). Pure: time is passed in; not thread-safe.
 */
public final class SnapshotPolicy {
    private final long maxRecordBytes;
    private final long maxIntervalMs;
    private long bytesSinceLast;
    private long lastAtMs;

    /**
     * @param nowMs when counting starts (a replica's start, or its last snapshot): the interval runs from here
     */
    public SnapshotPolicy(long maxRecordBytes, long maxIntervalMs, long nowMs) {
        if (maxRecordBytes < 1) {
            throw new IllegalArgumentException("maxRecordBytes must be >= 1: " + maxRecordBytes);
        }
        if (maxIntervalMs < 0) {
            throw new IllegalArgumentException("maxIntervalMs must be >= 0: " + maxIntervalMs);
        }
        this.maxRecordBytes = maxRecordBytes;
        this.maxIntervalMs = maxIntervalMs;
        this.lastAtMs = nowMs;
    }

    /** Committed records of this many bytes were applied. */
    public void committed(long recordBytes) {
        if (recordBytes < 0) {
            throw new IllegalArgumentException("recordBytes must be >= 0: " + recordBytes);
        }
        bytesSinceLast += recordBytes;
    }

    /** True if a snapshot should be written now. */
    public boolean due(long nowMs) {
        if (bytesSinceLast == 0) {
            return false;
        }
        return bytesSinceLast >= maxRecordBytes || (maxIntervalMs > 0 && nowMs - lastAtMs >= maxIntervalMs);
    }

    /** A snapshot of everything counted so far was started (or loaded): count again from zero. */
    public void reset(long nowMs) {
        bytesSinceLast = 0;
        lastAtMs = nowMs;
    }

    public long bytesSinceLast() {
        return bytesSinceLast;
    }

    /** How long until the time trigger could fire, from {@code nowMs} (Long.MAX_VALUE when it is off). */
    public long msUntilInterval(long nowMs) {
        return maxIntervalMs == 0 ? Long.MAX_VALUE : Math.max(0, lastAtMs + maxIntervalMs - nowMs);
    }
}
