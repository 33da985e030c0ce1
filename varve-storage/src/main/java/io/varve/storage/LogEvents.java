package io.varve.storage;

/** What a partition log tells its owner (the log manager) about changes that reach beyond the log. */
interface LogEvents {

    /**
     * The log start offset moved. With {@code persistNow} (DeleteRecords) the owner persists the log dir's
     * log-start-offset checkpoint before returning; otherwise at its next periodic checkpoint.
     */
    void logStartOffsetMoved(PartitionLog log, boolean persistNow);

    /** Segments were retired; their files must be deleted in {@code deleteDelayMs} via {@link PartitionLog#deleteRetiredSegments}. */
    void segmentsRetired(PartitionLog log, long deleteDelayMs);

    /**
     * A truncation is about to take the log's lock: the owner stops a cleaning pass of the log in flight (it may need
     * that lock to finish) and starts none until {@link #truncationEnded}. Called without the log's lock.
     */
    default void truncationStarting(PartitionLog log) {}

    /**
     * The log was truncated (its recovery point and high watermark may have gone down): the owner rewrites the log
     * dir's recovery-point checkpoint before returning, so that a crash after new appends never trusts the old one.
     */
    default void logTruncated(PartitionLog log) {}

    /** The truncation that {@link #truncationStarting} announced ended, done or failed: cleaning may go on. */
    default void truncationEnded(PartitionLog log) {}

    /** An I/O failure that is not a lack of resources happened in the log's dir: the dir is failing. */
    default void logDirFailed(PartitionLog log, Exception cause) {}

    /**
     * The active segment rolled without an fsync: the owner calls {@link PartitionLog#syncRolledSegments} soon, off
     * the append path (the default, for a log without an owner's threads, calls it now).
     */
    default void segmentRolled(PartitionLog log) {
        log.syncRolledSegments();
    }

    /** The log fsynced its active segment, which took {@code nanos} (Kafka's {@code LogFlushRateAndTimeMs}). */
    default void logFlushed(PartitionLog log, long nanos) {}

    LogEvents NONE = new LogEvents() {
        @Override
        public void logStartOffsetMoved(PartitionLog log, boolean persistNow) {}

        @Override
        public void segmentsRetired(PartitionLog log, long deleteDelayMs) {}
    };
}
