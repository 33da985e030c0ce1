package io.varve.storage;

import java.util.Set;

/**
 * Effective per-partition log configuration. Field names carry units; the Kafka topic-level key and
 * Kafka's default are given for each. Invariants are checked on construction so a bad value fails
 * where it is set. Build one with {@link #builder()} or derive one with the {@code withX} helpers.
 *
 * @param segmentBytes                {@code segment.bytes} (1 GiB): roll before the active segment would exceed it
 * @param indexIntervalBytes          {@code index.interval.bytes} (4096): bytes appended between two index entries
 * @param maxIndexSizeBytes           {@code segment.index.bytes} (10 MiB): largest offset or time index; full rolls
 * @param maxMessageBytes             {@code max.message.bytes} (1048588): largest record batch accepted
 * @param logAppendTime               {@code message.timestamp.type == LogAppendTime} (CreateTime)
 * @param flushMessages               {@code flush.messages} (Long.MAX_VALUE): fsync after this many unflushed offsets
 * @param flushMs                     {@code flush.ms} (Long.MAX_VALUE): fsync when the last flush is this old
 * @param segmentMs                   {@code segment.ms} (7 days): roll a non-empty active segment this long after its
 *                                    first append
 * @param segmentJitterMs             {@code segment.jitter.ms} (0): at most this much earlier, varying per partition
 * @param retentionMs                 {@code retention.ms} (7 days; -1 unlimited): delete segments whose largest
 *                                    timestamp is older
 * @param retentionBytes              {@code retention.bytes} (-1 unlimited): delete head segments while the log is
 *                                    larger
 * @param cleanupPolicy               {@code cleanup.policy} ([delete])
 * @param fileDeleteDelayMs           {@code file.delete.delay.ms} (60000): a deleted segment's files (and open
 *                                    channel, for reads in flight) live this long
 * @param deleteRetentionMs           {@code delete.retention.ms} (1 day): tombstones kept after compaction
 * @param minCleanableDirtyRatio      {@code min.cleanable.dirty.ratio} (0.5)
 * @param minCompactionLagMs          {@code min.compaction.lag.ms} (0)
 * @param maxCompactionLagMs          {@code max.compaction.lag.ms} (Long.MAX_VALUE)
 * @param messageTimestampBeforeMaxMs {@code message.timestamp.before.max.ms} (Long.MAX_VALUE): oldest CreateTime
 *                                    accepted, relative to now
 * @param messageTimestampAfterMaxMs  {@code message.timestamp.after.max.ms} (1 hour): newest CreateTime accepted,
 *                                    relative to now
 * @param remoteStorageEnable         {@code remote.storage.enable} (false), and the broker's
 *                                    {@code remote.log.storage.system.enable}: rolled segments are uploaded to remote
 *                                    storage and local retention applies
 * @param localRetentionMs            {@code local.retention.ms} (-2 = retention.ms): with remote storage, how long
 *                                    uploaded segments stay on local disk too
 * @param localRetentionBytes         {@code local.retention.bytes} (-2 = retention.bytes): with remote storage, the
 *                                    local size above which uploaded head segments leave the local disk
 * @param remoteLogCopyDisable        {@code remote.log.copy.disable} (false): stop uploading; remote data stays
 *                                    readable and retention.ms / retention.bytes govern both tiers
 * @param remoteLogDeleteOnDisable    {@code remote.log.delete.on.disable} (false): remote data is deleted once
 *                                    remote storage is turned off for the topic
 */
public record LogConfig(
        long segmentBytes,
        int indexIntervalBytes,
        int maxIndexSizeBytes,
        int maxMessageBytes,
        boolean logAppendTime,
        long flushMessages,
        long flushMs,
        long segmentMs,
        long segmentJitterMs,
        long retentionMs,
        long retentionBytes,
        Set<CleanupPolicy> cleanupPolicy,
        long fileDeleteDelayMs,
        long deleteRetentionMs,
        double minCleanableDirtyRatio,
        long minCompactionLagMs,
        long maxCompactionLagMs,
        long messageTimestampBeforeMaxMs,
        long messageTimestampAfterMaxMs,
        boolean remoteStorageEnable,
        long localRetentionMs,
        long localRetentionBytes,
        boolean remoteLogCopyDisable,
        boolean remoteLogDeleteOnDisable) {

    public static final long DEFAULT_SEGMENT_BYTES = 1024L * 1024 * 1024;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;
    public static final int DEFAULT_MAX_INDEX_SIZE_BYTES = 10 * 1024 * 1024;
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;
    public static final long DEFAULT_SEGMENT_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_FILE_DELETE_DELAY_MS = 60_000L;
    public static final long DEFAULT_DELETE_RETENTION_MS = 24L * 60 * 60 * 1000;
    public static final double DEFAULT_MIN_CLEANABLE_DIRTY_RATIO = 0.5;
    public static final long DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS = 60L * 60 * 1000;
    /** Value of retention.ms and retention.bytes meaning "no limit". */
    public static final long UNLIMITED = -1L;
    /** Value of local.retention.ms and local.retention.bytes meaning "as retention.ms / retention.bytes". */
    public static final long LOCAL_RETENTION_AS_TOTAL = -2L;

    public LogConfig {
        // File positions are int32 in the offset index, so a segment may not outgrow Integer.MAX_VALUE.
        requireIn("segmentBytes", segmentBytes, 1, Integer.MAX_VALUE);
        requireIn("indexIntervalBytes", indexIntervalBytes, 0, Integer.MAX_VALUE);
        requireIn("maxIndexSizeBytes (room for one 8-byte entry)", maxIndexSizeBytes, 8, Integer.MAX_VALUE);
        requireIn("maxMessageBytes", maxMessageBytes, 0, Integer.MAX_VALUE);
        requireIn("flushMessages", flushMessages, 1, Long.MAX_VALUE);
        requireIn("flushMs", flushMs, 0, Long.MAX_VALUE);
        requireIn("segmentMs", segmentMs, 1, Long.MAX_VALUE);
        requireIn("segmentJitterMs", segmentJitterMs, 0, Long.MAX_VALUE);
        requireIn("retentionMs", retentionMs, UNLIMITED, Long.MAX_VALUE);
        requireIn("retentionBytes", retentionBytes, UNLIMITED, Long.MAX_VALUE);
        requireIn("fileDeleteDelayMs", fileDeleteDelayMs, 0, Long.MAX_VALUE);
        requireIn("deleteRetentionMs", deleteRetentionMs, 0, Long.MAX_VALUE);
        if (!(minCleanableDirtyRatio >= 0 && minCleanableDirtyRatio <= 1)) {
            throw new IllegalArgumentException("minCleanableDirtyRatio must be in [0, 1]: " + minCleanableDirtyRatio);
        }
        requireIn("minCompactionLagMs", minCompactionLagMs, 0, Long.MAX_VALUE);
        requireIn("maxCompactionLagMs", maxCompactionLagMs, 1, Long.MAX_VALUE);
        requireIn("messageTimestampBeforeMaxMs", messageTimestampBeforeMaxMs, 0, Long.MAX_VALUE);
        requireIn("messageTimestampAfterMaxMs", messageTimestampAfterMaxMs, 0, Long.MAX_VALUE);
        requireIn("localRetentionMs", localRetentionMs, LOCAL_RETENTION_AS_TOTAL, Long.MAX_VALUE);
        requireIn("localRetentionBytes", localRetentionBytes, LOCAL_RETENTION_AS_TOTAL, Long.MAX_VALUE);
        if (cleanupPolicy == null) {
            throw new IllegalArgumentException("cleanupPolicy must not be null");
        }
        cleanupPolicy = Set.copyOf(cleanupPolicy);
    }

    private static void requireIn(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "]: " + value);
        }
    }

    public static LogConfig defaults() {
        return builder().build();
    }

    /** A builder starting from Kafka's defaults. */
    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** True when cleanup.policy contains delete: retention applies. */
    public boolean deletesOldSegments() {
        return cleanupPolicy.contains(CleanupPolicy.DELETE);
    }

    /** True when cleanup.policy contains compact. */
    public boolean compacts() {
        return cleanupPolicy.contains(CleanupPolicy.COMPACT);
    }

    /** local.retention.ms in effect: retention.ms when it is -2; -1 means unlimited. */
    public long effectiveLocalRetentionMs() {
        return localRetentionMs == LOCAL_RETENTION_AS_TOTAL ? retentionMs : localRetentionMs;
    }

    /** local.retention.bytes in effect: retention.bytes when it is -2; -1 means unlimited. */
    public long effectiveLocalRetentionBytes() {
        return localRetentionBytes == LOCAL_RETENTION_AS_TOTAL ? retentionBytes : localRetentionBytes;
    }

    /**
     * How long an active segment stays open: segment.ms, or max.compaction.lag.ms when that is shorter on a
     * compacted log (as Kafka does), since the cleaner never touches the active segment.
     */
    public long rollMs() {
        return compacts() ? Math.min(segmentMs, maxCompactionLagMs) : segmentMs;
    }

    public LogConfig withSegmentBytes(long v) {
        return toBuilder().segmentBytes(v).build();
    }

    public LogConfig withIndexIntervalBytes(int v) {
        return toBuilder().indexIntervalBytes(v).build();
    }

    public LogConfig withMaxIndexSizeBytes(int v) {
        return toBuilder().maxIndexSizeBytes(v).build();
    }

    public LogConfig withMaxMessageBytes(int v) {
        return toBuilder().maxMessageBytes(v).build();
    }

    public LogConfig withLogAppendTime(boolean v) {
        return toBuilder().logAppendTime(v).build();
    }

    public LogConfig withFlushMessages(long v) {
        return toBuilder().flushMessages(v).build();
    }

    public LogConfig withFlushMs(long v) {
        return toBuilder().flushMs(v).build();
    }

    public LogConfig withSegmentMs(long v) {
        return toBuilder().segmentMs(v).build();
    }

    public LogConfig withSegmentJitterMs(long v) {
        return toBuilder().segmentJitterMs(v).build();
    }

    public LogConfig withRetentionMs(long v) {
        return toBuilder().retentionMs(v).build();
    }

    public LogConfig withRetentionBytes(long v) {
        return toBuilder().retentionBytes(v).build();
    }

    public LogConfig withCleanupPolicy(Set<CleanupPolicy> v) {
        return toBuilder().cleanupPolicy(v).build();
    }

    public LogConfig withFileDeleteDelayMs(long v) {
        return toBuilder().fileDeleteDelayMs(v).build();
    }

    public LogConfig withDeleteRetentionMs(long v) {
        return toBuilder().deleteRetentionMs(v).build();
    }

    public LogConfig withMinCleanableDirtyRatio(double v) {
        return toBuilder().minCleanableDirtyRatio(v).build();
    }

    public LogConfig withMinCompactionLagMs(long v) {
        return toBuilder().minCompactionLagMs(v).build();
    }

    public LogConfig withMaxCompactionLagMs(long v) {
        return toBuilder().maxCompactionLagMs(v).build();
    }

    public LogConfig withMessageTimestampBeforeMaxMs(long v) {
        return toBuilder().messageTimestampBeforeMaxMs(v).build();
    }

    public LogConfig withMessageTimestampAfterMaxMs(long v) {
        return toBuilder().messageTimestampAfterMaxMs(v).build();
    }

    public LogConfig withRemoteStorageEnable(boolean v) {
        return toBuilder().remoteStorageEnable(v).build();
    }

    public LogConfig withLocalRetentionMs(long v) {
        return toBuilder().localRetentionMs(v).build();
    }

    public LogConfig withLocalRetentionBytes(long v) {
        return toBuilder().localRetentionBytes(v).build();
    }

    /** Mutable staging for a {@link LogConfig}; {@link #build()} checks the invariants. */
    public static final class Builder {
        private long segmentBytes = DEFAULT_SEGMENT_BYTES;
        private int indexIntervalBytes = DEFAULT_INDEX_INTERVAL_BYTES;
        private int maxIndexSizeBytes = DEFAULT_MAX_INDEX_SIZE_BYTES;
        private int maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES;
        private boolean logAppendTime;
        private long flushMessages = Long.MAX_VALUE;
        private long flushMs = Long.MAX_VALUE;
        private long segmentMs = DEFAULT_SEGMENT_MS;
        private long segmentJitterMs;
        private long retentionMs = DEFAULT_RETENTION_MS;
        private long retentionBytes = UNLIMITED;
        private Set<CleanupPolicy> cleanupPolicy = Set.of(CleanupPolicy.DELETE);
        private long fileDeleteDelayMs = DEFAULT_FILE_DELETE_DELAY_MS;
        private long deleteRetentionMs = DEFAULT_DELETE_RETENTION_MS;
        private double minCleanableDirtyRatio = DEFAULT_MIN_CLEANABLE_DIRTY_RATIO;
        private long minCompactionLagMs;
        private long maxCompactionLagMs = Long.MAX_VALUE;
        private long messageTimestampBeforeMaxMs = Long.MAX_VALUE;
        private long messageTimestampAfterMaxMs = DEFAULT_MESSAGE_TIMESTAMP_AFTER_MAX_MS;
        private boolean remoteStorageEnable;
        private long localRetentionMs = LOCAL_RETENTION_AS_TOTAL;
        private long localRetentionBytes = LOCAL_RETENTION_AS_TOTAL;
        private boolean remoteLogCopyDisable;
        private boolean remoteLogDeleteOnDisable;

        private Builder() {}

        private Builder(LogConfig c) {
            segmentBytes = c.segmentBytes;
            indexIntervalBytes = c.indexIntervalBytes;
            maxIndexSizeBytes = c.maxIndexSizeBytes;
            maxMessageBytes = c.maxMessageBytes;
            logAppendTime = c.logAppendTime;
            flushMessages = c.flushMessages;
            flushMs = c.flushMs;
            segmentMs = c.segmentMs;
            segmentJitterMs = c.segmentJitterMs;
            retentionMs = c.retentionMs;
            retentionBytes = c.retentionBytes;
            cleanupPolicy = c.cleanupPolicy;
            fileDeleteDelayMs = c.fileDeleteDelayMs;
            deleteRetentionMs = c.deleteRetentionMs;
            minCleanableDirtyRatio = c.minCleanableDirtyRatio;
            minCompactionLagMs = c.minCompactionLagMs;
            maxCompactionLagMs = c.maxCompactionLagMs;
            messageTimestampBeforeMaxMs = c.messageTimestampBeforeMaxMs;
            messageTimestampAfterMaxMs = c.messageTimestampAfterMaxMs;
            remoteStorageEnable = c.remoteStorageEnable;
            localRetentionMs = c.localRetentionMs;
            localRetentionBytes = c.localRetentionBytes;
            remoteLogCopyDisable = c.remoteLogCopyDisable;
            remoteLogDeleteOnDisable = c.remoteLogDeleteOnDisable;
        }

        public Builder segmentBytes(long v) {
            segmentBytes = v;
            return this;
        }

        public Builder indexIntervalBytes(int v) {
            indexIntervalBytes = v;
            return this;
        }

        public Builder maxIndexSizeBytes(int v) {
            maxIndexSizeBytes = v;
            return this;
        }

        public Builder maxMessageBytes(int v) {
            maxMessageBytes = v;
            return this;
        }

        public Builder logAppendTime(boolean v) {
            logAppendTime = v;
            return this;
        }

        public Builder flushMessages(long v) {
            flushMessages = v;
            return this;
        }

        public Builder flushMs(long v) {
            flushMs = v;
            return this;
        }

        public Builder segmentMs(long v) {
            segmentMs = v;
            return this;
        }

        public Builder segmentJitterMs(long v) {
            segmentJitterMs = v;
            return this;
        }

        public Builder retentionMs(long v) {
            retentionMs = v;
            return this;
        }

        public Builder retentionBytes(long v) {
            retentionBytes = v;
            return this;
        }

        public Builder cleanupPolicy(Set<CleanupPolicy> v) {
            cleanupPolicy = v;
            return this;
        }

        public Builder fileDeleteDelayMs(long v) {
            fileDeleteDelayMs = v;
            return this;
        }

        public Builder deleteRetentionMs(long v) {
            deleteRetentionMs = v;
            return this;
        }

        public Builder minCleanableDirtyRatio(double v) {
            minCleanableDirtyRatio = v;
            return this;
        }

        public Builder minCompactionLagMs(long v) {
            minCompactionLagMs = v;
            return this;
        }

        public Builder maxCompactionLagMs(long v) {
            maxCompactionLagMs = v;
            return this;
        }

        public Builder messageTimestampBeforeMaxMs(long v) {
            messageTimestampBeforeMaxMs = v;
            return this;
        }

        public Builder messageTimestampAfterMaxMs(long v) {
            messageTimestampAfterMaxMs = v;
            return this;
        }

        public Builder remoteStorageEnable(boolean v) {
            remoteStorageEnable = v;
            return this;
        }

        public Builder localRetentionMs(long v) {
            localRetentionMs = v;
            return this;
        }

        public Builder localRetentionBytes(long v) {
            localRetentionBytes = v;
            return this;
        }

        public Builder remoteLogCopyDisable(boolean v) {
            remoteLogCopyDisable = v;
            return this;
        }

        public Builder remoteLogDeleteOnDisable(boolean v) {
            remoteLogDeleteOnDisable = v;
            return this;
        }

        public LogConfig build() {
            return new LogConfig(
                    segmentBytes,
                    indexIntervalBytes,
                    maxIndexSizeBytes,
                    maxMessageBytes,
                    logAppendTime,
                    flushMessages,
                    flushMs,
                    segmentMs,
                    segmentJitterMs,
                    retentionMs,
                    retentionBytes,
                    cleanupPolicy,
                    fileDeleteDelayMs,
                    deleteRetentionMs,
                    minCleanableDirtyRatio,
                    minCompactionLagMs,
                    maxCompactionLagMs,
                    messageTimestampBeforeMaxMs,
                    messageTimestampAfterMaxMs,
                    remoteStorageEnable,
                    localRetentionMs,
                    localRetentionBytes,
                    remoteLogCopyDisable,
                    remoteLogDeleteOnDisable);
        }
    }
}
