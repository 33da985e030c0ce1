package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.ProduceBatchValidator;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.batch.ReplicatedBatchValidator;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.checkpoint.PartitionMetadataFile;
import io.varve.storage.epoch.EpochEndOffset;
import io.varve.storage.epoch.LeaderEpochCache;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.fs.IoErrors;
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.producer.ProducerStateEntry;
import io.varve.storage.producer.ProducerStateManager;
import io.varve.storage.records.RecordKeys;
import io.varve.storage.records.TxnMarker;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InconsistentTopicIdException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition: an ordered set of segments of which the last is active, plus the leader
 * epoch lineage and the idempotent-producer state (snapshotted at every roll and at close).
 *
 * <p>Threading: appends, rolls, retention, segment swaps, config updates and close are serialised on
 * this object. Reads ({@link LogReader}) take no lock: they snapshot the log end offset (published after
 * the segment's size) and read with positional I/O, so they never see bytes of an append in progress; a
 * segment removed by retention or compaction keeps its channel open for file.delete.delay.ms, so reads
 * and zero-copy sends in flight complete. Flushes ({@link LogFlusher}) take their own lock so an fsync
 * does not block appends.
 */
public final class PartitionLog {

    /** DeleteRecords' "up to the high watermark". */
    public static final long HIGH_WATERMARK = -1L;

    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    private final TopicPartition topicPartition;
    private final Path dir;
    private final String name;
    private final PartitionMetadataFile metadataFile;
    private final LogSegments segments;
    private final LeaderEpochCache epochCache;
    /** Guarded by this, but for its published first unstable offset. */
    private final ProducerStateStore producers;

    private final LogReader reader;
    private final LogFlusher flusher;
    private final LogEvents events;
    private final LongSupplier clockMs;

    private volatile Uuid topicId;
    private volatile LogConfig config;
    private volatile long logStartOffset;
    private volatile long logEndOffset;
    private volatile long highWatermark;
    private volatile boolean closed;
    /** Set after an I/O error or corrupt data: every later operation fails with KafkaStorageException. */
    private volatile boolean offline;
    /** True for a new log until its first flush made its directory and partition.metadata durable. */
    private volatile boolean creationUnsynced;
    /** Tiered logs: the highest offset confirmed in remote storage (local retention deletes only up to it). */
    private volatile long highestUploadedOffset = LogRetention.NOTHING_UPLOADED;
    /**
     * Until the remote log manager confirms it: {@link #NO_PENDING_REMOTE_START} when the checkpointed log
     * start offset was at or above the first local segment, -1 when there was no checkpoint, else the
     * checkpointed start below the first local segment (only remote storage can hold those offsets).
     */
    private volatile long pendingRemoteLogStart;

    private static final long NO_PENDING_REMOTE_START = Long.MIN_VALUE;

    private PartitionLog(
            TopicPartition topicPartition,
            Path dir,
            Uuid topicId,
            LogConfig config,
            PartitionMetadataFile metadataFile,
            LogLoader.LoadedLog loaded,
            LeaderEpochCache epochCache,
            LogEvents events,
            LongSupplier clockMs) {
        this.topicPartition = topicPartition;
        this.dir = dir;
        this.name = dir.getFileName().toString();
        this.topicId = topicId;
        this.config = config;
        this.metadataFile = metadataFile;
        this.segments = new LogSegments(dir, name, loaded.segments());
        this.producers = new ProducerStateStore(dir, name, loaded.producerState(), loaded.newestSnapshot());
        this.reader = new LogReader(this, segments, name);
        this.epochCache = epochCache;
        this.events = events;
        this.clockMs = clockMs;
        this.logStartOffset = loaded.logStartOffset();
        this.pendingRemoteLogStart = loaded.checkpointedLogStartOffset() < loaded.logStartOffset()
                ? Math.max(-1, loaded.checkpointedLogStartOffset())
                : NO_PENDING_REMOTE_START;
        this.logEndOffset = loaded.logEndOffset();
        // No high-watermark checkpoint yet: on a single node everything in the log was acknowledged.
        this.highWatermark = logEndOffset;
        // Loading fsynced whatever it recovered, and a clean shutdown flushed everything.
        this.flusher = new LogFlusher(logEndOffset);
    }

    /**
     * Opens the log in {@code dir}, creating the directory and its first segment if needed.
     *
     * @param topicId the topic id to record, or null when loading an existing log that carries its own
     */
    static PartitionLog open(
            Path dir,
            TopicPartition topicPartition,
            Uuid topicId,
            LogConfig config,
            LogLoader.LoadParams params,
            LogEvents events,
            LongSupplier clockMs) {
        String name = dir.getFileName().toString();
        try {
            boolean created = !Files.isDirectory(dir);
            if (created) {
                // Only for a new log: on an existing directory createDirectories throws and catches an exception.
                Files.createDirectories(dir);
            }
            PartitionMetadataFile metadataFile = new PartitionMetadataFile(dir);
            Uuid storedTopicId = metadataFile.read().orElse(Uuid.ZERO_UUID);
            Uuid effectiveTopicId = reconcileTopicId(name, storedTopicId, topicId);
            if (!effectiveTopicId.equals(storedTopicId)) {
                // A new log's files are made durable by its first flush, not one by one now: until then it holds
                // nothing a power loss could take (appends are not fsynced either), and a creation cut short is
                // recognised and redone (an empty partition.metadata, a directory without segments).
                metadataFile.write(effectiveTopicId, !created);
            }
            LogLoader.LoadedLog loaded = LogLoader.load(dir, name, config, params, !created);
            LeaderEpochCache epochCache = LeaderEpochCache.load(name, new LeaderEpochCheckpointFile(dir));
            epochCache.truncateFromEnd(loaded.logEndOffset());
            if (!params.hadCleanShutdown()) {
                rebuildEpochsPastRecoveryPoint(loaded, params.recoveryPoint(), epochCache);
            }
            PartitionLog opened = new PartitionLog(
                    topicPartition, dir, effectiveTopicId, config, metadataFile, loaded, epochCache, events, clockMs);
            opened.creationUnsynced = created;
            return opened;
        } catch (IOException e) {
            throw new KafkaStorageException("Could not open log " + dir, e);
        }
    }

    private static Uuid reconcileTopicId(String name, Uuid stored, Uuid requested) {
        if (requested == null || requested.equals(Uuid.ZERO_UUID) || requested.equals(stored)) {
            return stored;
        }
        if (!stored.equals(Uuid.ZERO_UUID)) {
            throw new InconsistentTopicIdException(name + " holds topic id " + stored + ", not " + requested);
        }
        return requested;
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Uuid topicId() {
        return topicId;
    }

    /** The partition directory. */
    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    /** Applies a new config to the live log; retention, rolls and flushes use it from their next check. */
    public synchronized void updateConfig(LogConfig config) {
        this.config = config;
    }

    /** Records {@code requested} as the topic id if none is stored; throws if a different one is. */
    synchronized void ensureTopicId(Uuid requested) {
        Uuid effective = reconcileTopicId(name, topicId, requested);
        if (!effective.equals(topicId)) {
            metadataFile.write(effective);
            topicId = effective;
        }
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    /**
     * The first offset held locally: the log start offset, or the first local segment's base offset when
     * local retention of a tiered log deleted segments whose offsets now live only in remote storage.
     */
    public long localLogStartOffset() {
        return Math.max(logStartOffset, segments.map().firstKey());
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    /** What the log-start-offset checkpoint records: a start still pending confirmation by remote storage stays. */
    long logStartOffsetToCheckpoint() {
        long pending = pendingRemoteLogStart;
        return pending >= 0 ? Math.min(pending, logStartOffset) : logStartOffset;
    }

    /**
     * Tiered seam, called once by the remote log manager when it takes this log over: remote storage holds
     * readable segments from {@code remoteLogStartOffset} contiguously up to the first local segment. The log
     * start offset moves down to it, or to the checkpointed start when that is higher (DeleteRecords or
     * retention had moved it there before a restart). Never moves the start up; persists a move at once.
     *
     * @return the log start offset afterwards
     */
    public synchronized long restoreLogStartOffsetFromRemote(long remoteLogStartOffset) {
        long pending = pendingRemoteLogStart;
        pendingRemoteLogStart = NO_PENDING_REMOTE_START;
        if (pending == NO_PENDING_REMOTE_START) {
            return logStartOffset;
        }
        long target = Math.max(remoteLogStartOffset, pending);
        if (target < logStartOffset && remoteLogStartOffset >= 0) {
            logStartOffset = target;
            events.logStartOffsetMoved(this, true);
            log.info(
                    "{}: log start offset {} restored from remote storage (first local offset {})",
                    name,
                    target,
                    localLogStartOffset());
        }
        return logStartOffset;
    }

    /**
     * Tiered retention: moves the log start offset up to {@code offset} (never back, never past the high
     * watermark), persists it before returning, then retires local segments wholly below it.
     *
     * @return the log start offset afterwards
     */
    public synchronized long advanceLogStartOffset(long offset, String reason) {
        ensureUsable();
        long target = Math.min(offset, highWatermark);
        if (target > logStartOffset) {
            logStartOffset = target;
            pendingRemoteLogStart = NO_PENDING_REMOTE_START;
            events.logStartOffsetMoved(this, true);
            log.info("{}: log start offset moved to {} by {}", name, target, reason);
        }
        deleteOldSegments(clockMs.getAsLong());
        return logStartOffset;
    }

    /** Tiered logs: the highest offset confirmed in remote storage, or -1. */
    public long highestUploadedOffset() {
        return highestUploadedOffset;
    }

    /**
     * Tiered logs: records the highest offset confirmed in remote storage (COPY_SEGMENT_FINISHED). Local
     * retention deletes only local segments wholly at or below it, and producer snapshots above it are kept.
     */
    public void updateHighestUploadedOffset(long offset) {
        highestUploadedOffset = Math.max(LogRetention.NOTHING_UPLOADED, offset);
    }

    /**
     * Read-only views of the rolled segments, oldest first, for the remote log manager. A rolled segment is
     * immutable; its files stay until retention or compaction retires it (then its paths change).
     */
    public List<RolledSegment> rolledSegmentViews() {
        return segments.rolledViews();
    }

    public long highWatermark() {
        return highWatermark;
    }

    /** Sets the high watermark, clamped to [log start offset, log end offset]. */
    public void updateHighWatermark(long offset) {
        highWatermark = Math.max(logStartOffset, Math.min(offset, logEndOffset));
    }

    /**
     * The last stable offset: the first offset of the oldest open transaction, or the high watermark when
     * that is lower (never below the log start offset). read_committed readers see only offsets below it.
     */
    public long lastStableOffset() {
        return lastStableOffset(highWatermark, logStartOffset);
    }

    /** {@link #lastStableOffset()} against a high watermark and log start offset a reader already holds. */
    long lastStableOffset(long highWatermark, long logStartOffset) {
        long firstUnstable = producers.firstUnstableOffset();
        long stable = firstUnstable < 0 ? highWatermark : Math.min(firstUnstable, highWatermark);
        return Math.max(stable, Math.min(logStartOffset, highWatermark));
    }

    /** Offsets below it are known to be fsynced. */
    public long recoveryPoint() {
        return flusher.recoveryPoint();
    }

    public int latestLeaderEpoch() {
        return epochCache.latestEpoch();
    }

    /**
     * Where {@code leaderEpoch} ends in this log ({@link LeaderEpochCache#endOffsetFor}, KIP-101/KIP-279): the answer
     * of OffsetsForLeaderEpoch and of the diverging-epoch check in Fetch; empty when it is undefined (an undefined
     * or unknown future epoch, or no epoch cached yet), which the wire says as epoch -1 and end offset -1.
     */
    public Optional<EpochEndOffset> endOffsetForEpoch(int leaderEpoch) {
        // the log end offset before the entries: an epoch appended meanwhile makes the answer for the older one
        // that epoch's start, which is at or below this end
        long endOffset = logEndOffset;
        EpochEndOffset found = epochCache.endOffsetFor(leaderEpoch, endOffset);
        return found.isUndefined() ? Optional.empty() : Optional.of(found);
    }

    /**
     * A new leader records its epoch at the log end offset before it appends (Kafka does so on becoming leader), so
     * followers asking where their older epoch ends learn the new epoch's start even before its first record.
     * Older or equal epochs change nothing.
     */
    public synchronized void assignLeaderEpochAtLogEnd(int leaderEpoch) {
        ensureUsable();
        epochCache.assign(leaderEpoch, logEndOffset);
    }

    /** The epoch lineage: each epoch and the first offset written in it. */
    public List<LeaderEpochCheckpointFile.EpochEntry> leaderEpochEntries() {
        return epochCache.entries();
    }

    /** Number of segments, the active one included. */
    public int segmentCount() {
        return segments.count();
    }

    /** Base offsets of the segments, oldest first, the active one last. */
    public List<Long> segmentBaseOffsets() {
        return segments.baseOffsets();
    }

    /** Bytes in all segments (what retention.bytes limits). */
    public long sizeBytes() {
        return segments.sizeBytes();
    }

    /** Producer state per producer id, for inspection (DescribeProducers) and tests. */
    public synchronized Map<Long, ProducerStateEntry> producerStates() {
        return producers.state().snapshot();
    }

    /**
     * Validates then appends the batches of a produce request (position to limit of {@code records})
     * atomically as leader: assigns offsets and the leader epoch in place, stamps LogAppendTime if
     * configured, rolls first when the active segment cannot take the bytes, an index is full or
     * segment.ms elapsed. Nothing is written when a check fails; the buffer's position and limit are left
     * as they were.
     *
     * @throws org.apache.kafka.common.InvalidRecordException on a compacted log, a record without a key
     * @throws InvalidTimestampException with CreateTime, a batch's max timestamp is more than
     *     message.timestamp.after.max.ms after {@code nowMs} or its base timestamp more than
     *     message.timestamp.before.max.ms before it
     */
    public AppendResult appendAsLeader(ByteBuffer records, int leaderEpoch, long nowMs) {
        return appendAsLeader(records, leaderEpoch, nowMs, AppendOrigin.CLIENT);
    }

    /**
     * {@link #appendAsLeader(ByteBuffer, int, long)} on behalf of {@code origin}. A {@link AppendOrigin#COORDINATOR}
     * append may hold transaction markers: control batches, transactional, with exactly one COMMIT or ABORT
     * record; a marker ends its producer's transaction (moving the last stable offset) and an ABORT is
     * recorded in the active segment's transaction index.
     *
     * @throws org.apache.kafka.common.InvalidRecordException a control batch from a client, or a malformed marker
     * @throws org.apache.kafka.common.errors.InvalidProducerEpochException a marker older than its producer's epoch
     * @throws org.apache.kafka.common.errors.TransactionCoordinatorFencedException a marker from an older coordinator
     *     epoch than the producer's last marker
     * @throws org.apache.kafka.common.errors.InvalidTxnStateException a non-transactional batch of a producer whose
     *     transaction is open
     */
    public synchronized AppendResult appendAsLeader(
            ByteBuffer records, int leaderEpoch, long nowMs, AppendOrigin origin) {
        ensureUsable();
        LogConfig cfg = config;
        // A slice shares the bytes, so the patches land in the caller's buffer; a read-only one is copied.
        ByteBuffer batches = records.isReadOnly()
                ? ByteBuffer.allocate(records.remaining())
                        .put(records.duplicate())
                        .flip()
                : records.slice();
        List<BatchHeader> headers = ProduceBatchValidator.validate(
                batches, cfg.maxMessageBytes(), cfg.segmentBytes(), origin == AppendOrigin.COORDINATOR);
        if (cfg.compacts()) {
            RecordKeys.requireKeys(batches, name);
        }
        if (!cfg.logAppendTime()) {
            ProduceBatchValidator.checkTimestamps(
                    headers, nowMs, cfg.messageTimestampBeforeMaxMs(), cfg.messageTimestampAfterMaxMs());
        }

        long firstOffset = logEndOffset;
        long nextOffset = firstOffset;
        ProducerStateManager.PendingAppend pending = producers.state().beginAppend();
        for (BatchHeader header : headers) {
            long lastOffset = nextOffset + header.lastOffsetDelta();
            long timestampMs = cfg.logAppendTime() ? nowMs : header.maxTimestamp();
            if (header.isControl()) {
                TxnMarker marker = TxnMarker.requireMarker(batches, header);
                pending.checkMarker(
                        header.producerId(),
                        header.producerEpoch(),
                        marker.coordinatorEpoch(),
                        marker.commit(),
                        nextOffset,
                        timestampMs);
                nextOffset = lastOffset + 1;
                continue;
            }
            Optional<BatchMetadata> original = pending.check(
                    header.producerId(),
                    header.producerEpoch(),
                    new BatchMetadata(
                            header.baseSequence(), header.lastSequence(), nextOffset, lastOffset, timestampMs),
                    header.isTransactional());
            if (original.isPresent()) {
                BatchMetadata dup = original.get();
                return new AppendResult(
                        dup.firstOffset(),
                        dup.lastOffset(),
                        cfg.logAppendTime() ? dup.timestampMs() : AppendResult.NO_TIMESTAMP,
                        logStartOffset,
                        true);
            }
            nextOffset = lastOffset + 1;
        }

        // Every check passed: from here on the append happens or the log goes offline.
        long assignedOffset = firstOffset;
        for (BatchHeader header : headers) {
            RecordBatchV2.patchOffsetAndEpoch(batches, header.position(), assignedOffset, leaderEpoch);
            if (cfg.logAppendTime()) {
                RecordBatchV2.patchLogAppendTime(batches, header.position(), header.sizeBytes(), nowMs);
            }
            assignedOffset += header.lastOffsetDelta() + 1;
        }
        try {
            LogSegment segment = maybeRoll(batches.remaining(), nextOffset - 1, cfg, nowMs);
            epochCache.assign(leaderEpoch, firstOffset);
            segment.append(batches, cfg.indexIntervalBytes(), cfg.maxIndexSizeBytes());
            segment.startRollClock(nowMs);
            pending.commit();
            producers.afterCommit(pending.completedTxns(), segment);
        } catch (IOException | RuntimeException e) {
            throw goOffline("append at offset " + firstOffset, e);
        }
        logEndOffset = nextOffset;
        if (flusher.dueAfterAppend(logEndOffset, cfg, nowMs)) {
            flush(nowMs);
        }
        return new AppendResult(
                firstOffset,
                nextOffset - 1,
                cfg.logAppendTime() ? nowMs : AppendResult.NO_TIMESTAMP,
                logStartOffset,
                false);
    }

    /**
     * Appends as follower the batches of the leader's Fetch response (position to limit of {@code records}), keeping
     * the offsets, partition leader epochs, producer ids, epochs and sequences the leader gave them; control batches
     * (transaction markers) included. Only whole batches are appended: a last batch cut short by the fetch's byte
     * limit is left for the next fetch ({@link FollowerAppendResult#validBytes()}). A batch whose partition leader
     * epoch is newer than the latest known starts that epoch at its base offset; producer state is rebuilt as on
     * recovery (no sequence checks: the leader made them), so this replica de-duplicates retries and knows the open
     * transactions if it becomes leader; an ABORT marker fills the aborted-transaction index. Segments roll by
     * segment.bytes, segment.ms, full indexes and int32 offset overflow. The high watermark does not move: the
     * replica layer sets it from the leader's. Nothing is written when a check fails.
     *
     * @throws io.varve.storage.batch.OffsetOverlapException the first batch starts below the log end offset, or the
     *     offsets of the set do not grow (gaps are allowed)
     * @throws org.apache.kafka.common.InvalidRecordException magic other than v2, an inconsistent header, or an
     *     undecodable transaction marker
     * @throws org.apache.kafka.common.errors.CorruptRecordException a CRC mismatch
     */
    public synchronized FollowerAppendResult appendAsFollower(ByteBuffer records) {
        ensureUsable();
        LogConfig cfg = config;
        ByteBuffer batches = records.slice();
        ReplicatedBatchValidator.Validated validated = ReplicatedBatchValidator.validate(batches, logEndOffset);
        if (validated.isEmpty()) {
            return FollowerAppendResult.nothing(logEndOffset);
        }
        List<BatchHeader> headers = validated.headers();
        TxnMarker[] markers = new TxnMarker[headers.size()];
        for (int i = 0; i < headers.size(); i++) {
            BatchHeader header = headers.get(i);
            if (header.isControl() && header.hasProducerId()) {
                markers[i] = TxnMarker.readOrNull(batches.duplicate()
                        .position(header.position())
                        .limit(header.endPosition())
                        .slice());
            }
        }
        long nowMs = clockMs.getAsLong();
        long firstOffset = headers.get(0).baseOffset();
        // Every check passed: from here on the append happens or the log goes offline.
        try {
            int from = 0;
            while (from < headers.size()) {
                BatchHeader first = headers.get(from);
                LogSegment segment = maybeRollForFollower(first, cfg, nowMs);
                int to = from + 1;
                long runBytes = first.sizeBytes();
                while (to < headers.size()
                        && segment.sizeBytes() + runBytes + headers.get(to).sizeBytes() <= cfg.segmentBytes()
                        && segment.canHoldOffsetsUpTo(headers.get(to).lastOffset())) {
                    runBytes += headers.get(to).sizeBytes();
                    to++;
                }
                for (int i = from; i < to; i++) {
                    BatchHeader header = headers.get(i);
                    if (header.partitionLeaderEpoch() >= 0) {
                        epochCache.assign(header.partitionLeaderEpoch(), header.baseOffset());
                    }
                }
                segment.append(
                        batches.duplicate()
                                .position(first.position())
                                .limit(first.position() + (int) runBytes)
                                .slice(),
                        cfg.indexIntervalBytes(),
                        cfg.maxIndexSizeBytes());
                segment.startRollClock(nowMs);
                for (int i = from; i < to; i++) {
                    producers.applyReplicated(headers.get(i), markers[i], segment);
                }
                producers.publishFirstUnstableOffset();
                logEndOffset = headers.get(to - 1).nextOffset();
                from = to;
            }
        } catch (IOException | RuntimeException e) {
            throw goOffline("follower append at offset " + firstOffset, e);
        }
        if (flusher.dueAfterAppend(logEndOffset, cfg, nowMs)) {
            flush(nowMs);
        }
        return new FollowerAppendResult(
                firstOffset,
                headers.get(headers.size() - 1).lastOffset(),
                headers.size(),
                validated.validBytes(),
                logEndOffset);
    }

    /**
     * The active segment for a follower's batch, after rolling when it should not go into the current one. The new
     * segment starts at the batch when a gap before it would not fit the indexes' int32 relative offsets.
     */
    private LogSegment maybeRollForFollower(BatchHeader batch, LogConfig cfg, long nowMs) throws IOException {
        LogSegment active = segments.active();
        boolean sizeFull = active.sizeBytes() > cfg.segmentBytes() - batch.sizeBytes();
        boolean indexFull = active.indexesFull(cfg.maxIndexSizeBytes());
        boolean offsetsOverflow = !active.canHoldOffsetsUpTo(batch.lastOffset());
        boolean timeElapsed = segmentMsElapsed(active, cfg, nowMs);
        // an empty segment takes any batch its indexes can address; one they cannot is left behind empty
        if ((active.isEmpty() && !offsetsOverflow) || !(sizeFull || indexFull || offsetsOverflow || timeElapsed)) {
            return active;
        }
        long newBaseOffset = batch.lastOffset() - logEndOffset > Integer.MAX_VALUE ? batch.baseOffset() : logEndOffset;
        return roll(
                (sizeFull ? "size full " : "")
                        + (indexFull ? "index full " : "")
                        + (offsetsOverflow ? "offsets overflow " : "")
                        + (timeElapsed ? "segment.ms elapsed" : ""),
                newBaseOffset);
    }

    /**
     * Drops every record at and above {@code offset}, as a follower does before fetching on from a leader whose log
     * diverges there (a batch straddling the offset goes whole, so the log end offset afterwards may be lower). A
     * no-op when {@code offset} is at or past the log end offset; below the first segment it is
     * {@link #truncateFullyAndStartAt}. Segments above go (newest first), the one holding the offset is cut and its
     * indexes rebuilt, the cut is made durable, then the leader epochs starting at or past the new end are dropped,
     * the producer state is rebuilt from the newest snapshot at or below it plus a replay (later snapshots deleted),
     * and the high watermark, log start offset and recovery point are clamped to the new end. A crash at any step
     * loads as a log ending between the new and the old end whose epochs and producer state match its batches.
     *
     * @return whether anything was dropped
     */
    public synchronized boolean truncateTo(long offset) {
        ensureUsable();
        if (offset < 0) {
            throw new IllegalArgumentException(name + ": cannot truncate to negative offset " + offset);
        }
        long oldEnd = logEndOffset;
        if (offset >= oldEnd) {
            return false;
        }
        if (offset < segments.map().firstKey()) {
            truncateFullyAndStartAt(offset);
            return true;
        }
        LogConfig cfg = config;
        // new reads stop at the offset before any byte goes
        highWatermark = Math.min(highWatermark, offset);
        logEndOffset = offset;
        int retired;
        long newEnd;
        try {
            retired = segments.retireAbove(offset, clockMs.getAsLong() + cfg.fileDeleteDelayMs());
            segments.beforeStep("cut segment " + segments.active().baseOffset());
            newEnd = segments.active().truncateTo(offset, cfg.indexIntervalBytes(), cfg.maxIndexSizeBytes());
            logEndOffset = newEnd;
            segments.beforeStep("truncate leader epochs");
            epochCache.truncateFromEnd(newEnd);
            segments.beforeStep("rebuild producer state");
            producers.rebuildTo(segments.map(), newEnd);
        } catch (IOException | RuntimeException e) {
            throw goOffline("truncation to offset " + offset, e);
        }
        flusher.truncateTo(newEnd);
        highWatermark = Math.min(highWatermark, newEnd);
        logStartOffset = Math.min(logStartOffset, newEnd);
        if (retired > 0) {
            events.segmentsRetired(this, cfg.fileDeleteDelayMs());
        }
        events.logTruncated(this);
        log.info(
                "{}: truncated to offset {} (log end offset {} before, {} now), {} segments deleted",
                name,
                offset,
                oldEnd,
                newEnd,
                retired);
        return true;
    }

    /**
     * Empties the log and starts it at {@code offset}: a follower whose fetch offset is out of its leader's range
     * (or that builds its state from remote storage, for a tiered topic). Every segment, producer snapshot and
     * leader epoch goes; the log start offset, log end offset, high watermark and recovery point all become
     * {@code offset}, and the log start offset is persisted before returning. A crash part way loads as a shorter
     * log or an empty one, never as the old lineage beside the new start.
     */
    public synchronized void truncateFullyAndStartAt(long offset) {
        ensureUsable();
        if (offset < 0) {
            throw new IllegalArgumentException(name + ": cannot start the log at negative offset " + offset);
        }
        LogConfig cfg = config;
        long oldStart = logStartOffset;
        long oldEnd = logEndOffset;
        highWatermark = Math.min(highWatermark, offset);
        logEndOffset = Math.min(logEndOffset, offset);
        try {
            segments.retireAllAndStartAt(offset, clockMs.getAsLong() + cfg.fileDeleteDelayMs(), () -> {
                // before the new segment exists: a crash then loads an empty log, with no epoch or producer of the
                // old lineage left to be taken for the new one's
                segments.beforeStep("clear leader epochs and producer snapshots");
                epochCache.clear();
                producers.clear();
            });
        } catch (IOException | RuntimeException e) {
            throw goOffline("truncation to start at offset " + offset, e);
        }
        logStartOffset = offset;
        logEndOffset = offset;
        highWatermark = offset;
        pendingRemoteLogStart = NO_PENDING_REMOTE_START;
        flusher.resetTo(offset);
        events.segmentsRetired(this, cfg.fileDeleteDelayMs());
        events.logStartOffsetMoved(this, true);
        events.logTruncated(this);
        log.info(
                "{}: truncated fully and started at offset {} (offsets were [{}, {}))", name, offset, oldStart, oldEnd);
    }

    /** The active segment, after rolling a new one when this append should not go into the current one. */
    private LogSegment maybeRoll(int appendBytes, long lastOffset, LogConfig cfg, long nowMs) throws IOException {
        LogSegment active = segments.active();
        boolean sizeFull = active.sizeBytes() > cfg.segmentBytes() - appendBytes;
        boolean indexFull = active.indexesFull(cfg.maxIndexSizeBytes());
        boolean offsetsOverflow = !active.canHoldOffsetsUpTo(lastOffset);
        boolean timeElapsed = segmentMsElapsed(active, cfg, nowMs);
        if (active.isEmpty() || !(sizeFull || indexFull || offsetsOverflow || timeElapsed)) {
            return active;
        }
        return roll((sizeFull ? "size full " : "")
                + (indexFull ? "index full " : "")
                + (offsetsOverflow ? "offsets overflow " : "")
                + (timeElapsed ? "segment.ms elapsed" : ""));
    }

    /** {@link LogConfig#rollMs} less this partition's share of segment.jitter.ms since the segment's first append. */
    private boolean segmentMsElapsed(LogSegment active, LogConfig cfg, long nowMs) {
        long rollMs = cfg.rollMs();
        long jitterMs = cfg.segmentJitterMs() == 0
                ? 0
                : Math.floorMod(name.hashCode(), Math.min(cfg.segmentJitterMs(), rollMs));
        long startMs = active.rollBaseMs();
        return startMs >= 0 && nowMs - startMs > rollMs - jitterMs;
    }

    /**
     * Makes a new empty active segment at the log end offset. The old one gets its final time-index entry
     * and is fsynced before the new one exists, so recovery after a crash never needs to scan it; then a
     * producer snapshot is taken at the new base offset. Caller holds this.
     */
    private LogSegment roll(String reason) throws IOException {
        return roll(reason, logEndOffset);
    }

    /**
     * {@link #roll(String)} at {@code newBaseOffset}, at or above the log end offset: a follower whose next batch
     * starts past a gap (compaction on the leader) may start the segment at that batch. No batch lies in between,
     * so the producer snapshot describes the state at the new base offset, and is named after it.
     */
    private LogSegment roll(String reason, long newBaseOffset) throws IOException {
        LogSegment old = segments.active();
        LogSegment rolled = segments.roll(newBaseOffset);
        flusher.advanceRecoveryPoint(newBaseOffset);
        producers.takeSnapshot(newBaseOffset, rolled, snapshotPruneLimit());
        log.info(
                "{}: rolled segment {} ({} bytes; {}), new active segment starts at offset {}",
                name,
                old.baseOffset(),
                old.sizeBytes(),
                reason.trim(),
                newBaseOffset);
        return rolled;
    }

    /** Snapshots above it are kept: on a tiered log, those of segments not uploaded yet. */
    private long snapshotPruneLimit() {
        LogConfig cfg = config;
        return cfg.remoteStorageEnable() && !cfg.remoteLogCopyDisable() ? highestUploadedOffset + 1 : Long.MAX_VALUE;
    }

    /** Rolls a non-empty active segment now (tests and tools; appends and retention roll by themselves). */
    synchronized void roll() {
        ensureUsable();
        rollUnlessEmpty("requested");
    }

    /** Rolls the active segment when it is non-empty and segment.ms (less jitter) passed since its first append. */
    public synchronized boolean rollIfSegmentMsElapsed(long nowMs) {
        return !closed
                && !offline
                && segmentMsElapsed(segments.active(), config, nowMs)
                && rollUnlessEmpty("segment.ms");
    }

    private boolean rollUnlessEmpty(String reason) {
        if (segments.active().isEmpty()) {
            return false;
        }
        try {
            roll(reason);
            return true;
        } catch (IOException e) {
            throw goOffline("roll", e);
        }
    }

    /** {@link LogReader#read}: whole batches from the one holding {@code fetchOffset}, copied to the heap. */
    public LogReadResult read(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        return reader.read(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
    }

    /**
     * {@link #read} without the copy: where the same batches lie in their segment file, for a zero-copy
     * send. See {@link LogSlice} for how long the channel stays valid.
     */
    public LogSlice readSlice(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        return reader.readSlice(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
    }

    /** {@link LogReader#abortedTransactions}: what a read_committed reader of [fetchOffset, upperBoundOffset) skips. */
    public List<AbortedTxn> abortedTransactions(long fetchOffset, long upperBoundOffset) {
        return reader.abortedTransactions(fetchOffset, upperBoundOffset);
    }

    /** {@link LogReader#offsetForTimestamp}: ListOffsets by time, through the time indexes. */
    public Optional<TimestampAndOffset> offsetForTimestamp(long timestampMs) {
        return reader.offsetForTimestamp(timestampMs);
    }

    /** {@link LogReader#maxTimestampAndOffset}: ListOffsets MAX_TIMESTAMP. */
    public Optional<TimestampAndOffset> maxTimestampAndOffset() {
        return reader.maxTimestampAndOffset();
    }

    /**
     * DeleteRecords: moves the log start offset to {@code offset} ({@link #HIGH_WATERMARK} for the high
     * watermark) unless it is there already, persists it, and retires the segments wholly below it.
     *
     * @return the log start offset afterwards
     * @throws OffsetOutOfRangeException the offset is negative or above the high watermark
     * @throws PolicyViolationException   cleanup.policy does not contain delete
     */
    public synchronized long deleteRecordsBefore(long offset) {
        ensureUsable();
        if (!config.deletesOldSegments()) {
            throw new PolicyViolationException("Records of " + topicPartition
                    + " cannot be deleted: its cleanup.policy " + "does not contain delete");
        }
        long hw = highWatermark;
        long target = offset == HIGH_WATERMARK ? hw : offset;
        if (target < 0 || target > hw) {
            throw new OffsetOutOfRangeException(name + ": cannot delete records before offset " + offset
                    + ", it is outside [0, " + hw + "] (the high watermark)");
        }
        if (target > logStartOffset) {
            logStartOffset = target;
            pendingRemoteLogStart = NO_PENDING_REMOTE_START;
            events.logStartOffsetMoved(this, true);
            log.info("{}: log start offset moved to {} by DeleteRecords", name, target);
        }
        deleteOldSegments(clockMs.getAsLong());
        return logStartOffset;
    }

    /**
     * Retention at {@code nowMs}: retires head segments while retention.ms, retention.bytes or the log start
     * offset says so ({@link LogRetention}); returns how many.
     */
    public synchronized int deleteOldSegments(long nowMs) {
        if (closed || offline) {
            return 0;
        }
        try {
            return LogRetention.apply(this, segments.map(), nowMs);
        } catch (IOException e) {
            throw goOffline("retention", e);
        }
    }

    /**
     * Takes head segments out of the log; their files go after file.delete.delay.ms. Caller holds this.
     * Without {@code movesLogStartOffset} (local retention of a tiered log) the offsets stay readable remotely.
     */
    void retire(List<LogSegment> doomed, String reason, boolean movesLogStartOffset, long nowMs) throws IOException {
        if (doomed.contains(segments.active())) {
            roll(reason + " deletes every segment");
        }
        long firstKept = segments.map().higherKey(doomed.get(doomed.size() - 1).baseOffset());
        if (movesLogStartOffset && firstKept > logStartOffset) {
            // move the start first so that new reads of the doomed offsets are refused before the segments go
            logStartOffset = firstKept;
            pendingRemoteLogStart = NO_PENDING_REMOTE_START;
        }
        long deleteDelayMs = config.fileDeleteDelayMs();
        segments.retire(doomed, nowMs + deleteDelayMs);
        if (movesLogStartOffset) {
            events.logStartOffsetMoved(this, false);
        }
        events.segmentsRetired(this, deleteDelayMs);
        log.info(
                "{}: deleted {} segments [{}, {}) by {}; log start offset {}, local log start offset {}",
                name,
                doomed.size(),
                doomed.get(0).baseOffset(),
                firstKept,
                reason,
                logStartOffset,
                localLogStartOffset());
    }

    /** Closes and deletes the files of segments retired at least file.delete.delay.ms before; returns how many. */
    public int deleteRetiredSegments(long nowMs) {
        return segments.deleteRetired(nowMs);
    }

    /** Forgets producers idle for {@code expirationMs} (producer.id.expiration.ms); returns how many. */
    public synchronized int expireProducers(long nowMs, long expirationMs) {
        return closed || offline ? 0 : producers.expire(nowMs, expirationMs);
    }

    /** The segments before the active one, oldest first: immutable, what a cleaner reads. */
    public List<LogSegment> rolledSegments() {
        return segments.rolled();
    }

    /**
     * Compaction seam: atomically replaces a contiguous run of rolled segments by segments a cleaner
     * wrote with {@link LogSegment#createCleaned} (files {@code *.cleaned}), following the
     * {@link io.varve.storage.segment.SegmentSwap} protocol, so a crash at any point leaves the log wholly
     * before or wholly after the swap (the loader completes a committed one). The first cleaned segment
     * must start at the run's base offset and all lie within the run; offsets are kept (gaps allowed).
     * The replaced segments are retired, so reads in flight complete.
     *
     * @throws IllegalArgumentException the run or the cleaned segments do not qualify (nothing changed)
     */
    public synchronized void replaceSegments(List<LogSegment> cleaned, List<Long> replacedBaseOffsets) {
        ensureUsable();
        long deleteDelayMs = config.fileDeleteDelayMs();
        try {
            segments.swap(cleaned, replacedBaseOffsets, clockMs.getAsLong() + deleteDelayMs);
        } catch (IOException e) {
            throw goOffline("swap of segments " + replacedBaseOffsets, e);
        }
        events.segmentsRetired(this, deleteDelayMs);
        // the caller (the log cleaner) logs the pass as a whole
        log.debug(
                "{}: swapped segments {} for cleaned segments {}",
                name,
                replacedBaseOffsets,
                cleaned.stream().map(LogSegment::baseOffset).toList());
    }

    /** Test seam: {@code faults} runs before each durable step of later segment swaps and truncations. */
    void injectStepFaults(StepFaults faults) {
        segments.injectStepFaults(faults);
    }

    /** Fsyncs everything appended so far. Segments before the active one were fsynced when rolled. */
    public void flush() {
        flush(-1);
    }

    /** The flush scheduler's check: fsyncs when there is unflushed data and flush.ms passed since the last flush. */
    public void flushIfDue(long nowMs) {
        if (!closed && !offline && flusher.dueOnSchedule(logEndOffset, config, nowMs)) {
            flush(nowMs);
        }
    }

    private void flush(long nowMs) {
        if (closed) {
            return; // close() flushed already
        }
        try {
            if (creationUnsynced) {
                metadataFile.fsync();
                DurableFiles.fsyncDirectory(dir);
                creationUnsynced = false;
            }
            // the log end offset first: every byte below it is in the active segment or an older, fsynced one
            long endOffset = logEndOffset;
            epochCache.flush(); // durable before the recovery point passes the epochs it holds
            flusher.flush(endOffset, segments.active(), nowMs);
        } catch (IOException e) {
            throw goOffline("flush", e);
        }
    }

    /**
     * Flushes, records the active segment's max timestamp in its time index, snapshots the producer state
     * at the log end (unless the newest snapshot already is exactly that) and closes every segment, retired
     * ones included (their files are deleted at the next start-up). Later calls on this log fail. Idempotent.
     */
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            if (!offline) {
                flush();
                try {
                    segments.active().finish();
                    if (!producers.snapshotIsCurrent(logEndOffset, segments.active())) {
                        producers.takeSnapshot(logEndOffset, segments.active());
                    }
                } catch (IOException e) {
                    throw goOffline("close", e);
                }
            }
        } finally {
            closed = true;
            try {
                segments.closeAll();
            } catch (IOException e) {
                throw new KafkaStorageException(name + ": closing segments failed", e);
            }
        }
    }

    public boolean isOffline() {
        return offline;
    }

    void ensureUsable() {
        if (offline) {
            throw new KafkaStorageException(
                    name + " is offline after an I/O error or corrupt data; see the broker log");
        }
        if (closed) {
            throw new KafkaStorageException(name + " is closed");
        }
    }

    /**
     * After a crash: epochs are fsynced only with the log, so those starting past the recovery point may be missing
     * from the checkpoint; every batch carries its leader epoch, so the recovered tail tells them again.
     */
    private static void rebuildEpochsPastRecoveryPoint(
            LogLoader.LoadedLog loaded, long recoveryPoint, LeaderEpochCache epochCache) throws IOException {
        long from = Math.max(recoveryPoint, 0L);
        Long first = loaded.segments().floorKey(from);
        for (LogSegment segment : loaded.segments()
                .tailMap(first == null ? loaded.segments().firstKey() : first, true)
                .values()) {
            io.varve.storage.segment.BatchHeaderScanner scanner = segment.scanner(0, false);
            for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
                if (header.lastOffset() >= from) {
                    epochCache.assign(header.partitionLeaderEpoch(), header.baseOffset());
                }
            }
        }
        epochCache.flush();
    }

    /** Takes the log offline (every later operation fails) and returns the exception to throw. */
    KafkaStorageException goOffline(String what, Exception cause) {
        if (IoErrors.isResourceExhaustion(cause)) {
            // Out of descriptors is not damage: nothing was changed (a failed append is cut back), so the log stays
            // online and the client retries; the budget logs the condition once.
            log.debug("{}: {} failed for lack of a resource; the client will retry", name, what, cause);
            return new KafkaStorageException(
                    name + ": " + what + " failed for lack of file descriptors; retry: " + cause.getMessage(), cause);
        }
        offline = true;
        if (LogDirFailures.isDiskFault(cause)) {
            log.error("{}: {} failed; the log dir {} goes offline", name, what, dir.getParent(), cause);
            events.logDirFailed(this, cause);
        } else {
            log.error("{}: {} failed; the log is offline until restart", name, what, cause);
        }
        return new KafkaStorageException(name + ": " + what + " failed", cause);
    }

    /** Takes the log offline because its log dir failed: later operations fail with KAFKA_STORAGE_ERROR. */
    void markDirOffline() {
        offline = true;
    }
}
