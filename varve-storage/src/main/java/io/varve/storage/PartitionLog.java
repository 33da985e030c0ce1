package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.ProduceBatchValidator;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.checkpoint.PartitionMetadataFile;
import io.varve.storage.epoch.EpochEndOffset;
import io.varve.storage.epoch.LeaderEpochCache;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.fs.IoErrors;
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.producer.ProducerStateEntry;
import io.varve.storage.producer.ProducerStateManager;
import io.varve.storage.producer.VerificationGuard;
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
    /** Appends of a leader's batches and truncations; guarded by this. */
    private final FollowerWrites followerWrites;
    /** When and how the active segment rolls; guarded by this. */
    private final SegmentRoller roller;

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
    /**
     * Set when a replica move to another log dir swapped this log out ({@link ReplicaDirMover}): writes fail with
     * KafkaStorageException (the client retries on the new log), its files are left alone (the directory is being
     * renamed away), and reads in flight complete until the delayed {@link #close}.
     */
    private volatile boolean movedAway;
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
            long checkpointedHighWatermark,
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
        // Only what was known committed: a follower must not expose records its leader may never have committed.
        // Without a checkpoint that is nothing (Kafka's rule); the replica layer moves it on from there.
        this.highWatermark = Math.max(logStartOffset, Math.min(checkpointedHighWatermark, logEndOffset));
        // Loading fsynced whatever it recovered, and a clean shutdown flushed everything.
        this.flusher = new LogFlusher(logEndOffset, this::logEndOffset);
        this.roller = new SegmentRoller(name, segments, flusher, producers);
        this.followerWrites = new FollowerWrites(this, segments, roller, epochCache, producers, events, clockMs);
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
            LeaderEpochCache epochCache = LogLoader.loadLeaderEpochs(dir, name, loaded, params);
            PartitionLog opened = new PartitionLog(
                    topicPartition,
                    dir,
                    effectiveTopicId,
                    config,
                    metadataFile,
                    loaded,
                    params.highWatermark(),
                    epochCache,
                    events,
                    clockMs);
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

    /**
     * Moves the high watermark up to {@code offset}, clamped to [log start offset, log end offset]; never down (only a
     * truncation lowers it). Readers for consumers bound themselves by it (or by the last stable offset below it).
     */
    public synchronized void updateHighWatermark(long offset) {
        long clamped = Math.max(logStartOffset, Math.min(offset, logEndOffset));
        if (clamped > highWatermark) {
            highWatermark = clamped;
        }
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

    /** The leader epoch {@code offset} was written in ({@link LeaderEpochCache#epochForOffset}); -1 if unknown. */
    public int leaderEpochAt(long offset) {
        return epochCache.epochForOffset(offset);
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
    /**
     * Before the leader asks the transaction coordinator about a transactional write (KIP-890 part 1): empty when the
     * producer's transaction is open here at {@code epoch} already, else the guard to append with once verified.
     */
    public synchronized Optional<VerificationGuard> startTransactionVerification(long producerId, short epoch) {
        return producers.state().startVerification(producerId, epoch);
    }

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
        return appendAsLeader(records, leaderEpoch, nowMs, origin, null);
    }

    /**
     * {@link #appendAsLeader(ByteBuffer, int, long, AppendOrigin)} of a produce the leader verified with the
     * transaction coordinator (KIP-890 part 1): a transactional batch that starts its producer's transaction here
     * needs {@code guard} from {@link #startTransactionVerification}, still held ({@link VerificationGuard#UNVERIFIED}
     * when nothing was asked); null checks nothing.
     *
     * @throws org.apache.kafka.common.errors.InvalidTxnStateException such a batch without its guard
     */
    public synchronized AppendResult appendAsLeader(
            ByteBuffer records, int leaderEpoch, long nowMs, AppendOrigin origin, VerificationGuard guard) {
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
        ProducerStateManager.PendingAppend pending = guard == null
                ? producers.state().beginAppend()
                : producers.state().beginAppend(guard);
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
     * replica layer sets it from the leader's. Nothing is written when a check fails. See {@link FollowerWrites}.
     *
     * @throws io.varve.storage.batch.OffsetOverlapException the first batch starts below the log end offset, or the
     *     offsets of the set do not grow (gaps are allowed)
     * @throws org.apache.kafka.common.InvalidRecordException magic other than v2, an inconsistent header, or an
     *     undecodable transaction marker
     * @throws org.apache.kafka.common.errors.CorruptRecordException a CRC mismatch
     */
    public synchronized FollowerAppendResult appendAsFollower(ByteBuffer records) {
        ensureUsable();
        return followerWrites.append(records);
    }

    /**
     * Drops every record at and above {@code offset}, as a follower does before fetching on from a leader whose log
     * diverges there (a batch straddling the offset goes whole, so the log end offset afterwards may be lower). At or
     * past the log end offset no record goes, only leader epochs that start at the end (see {@link
     * #dropEpochsFromLogEnd}); below the first segment it is
     * {@link #truncateFullyAndStartAt}. Segments above go, the one holding the offset is cut, the leader epochs past
     * the new end are dropped, the producer state is rebuilt, and the high watermark, log start offset and recovery
     * point are clamped to the new end. A crash at any step loads as a log ending between the new and the old end
     * whose epochs and producer state match its batches. See {@link FollowerWrites#truncateTo}.
     *
     * @return whether anything was dropped
     */
    public boolean truncateTo(long offset) {
        ensureUsable();
        if (offset < 0) {
            throw new IllegalArgumentException(name + ": cannot truncate to negative offset " + offset);
        }
        if (offset >= logEndOffset) {
            dropEpochsFromLogEnd();
            return false; // checked again under the lock
        }
        events.truncationStarting(this);
        try {
            return truncateToLocked(offset);
        } finally {
            events.truncationEnded(this);
        }
    }

    /**
     * A truncation at or past the end drops no record, but still drops the leader epochs that start at the end: a
     * broker that became leader recorded its epoch there and lost the leadership before appending anything. Kept,
     * that epoch would be this log's latest, and every fetch from the new leader would report a divergence at an
     * offset this log already ends at: the follower would truncate nothing, ask again, and never catch up.
     */
    private synchronized void dropEpochsFromLogEnd() {
        ensureUsable();
        epochCache.truncateFromEnd(logEndOffset);
    }

    private synchronized boolean truncateToLocked(long offset) {
        ensureUsable();
        if (offset >= logEndOffset) {
            epochCache.truncateFromEnd(logEndOffset);
            return false;
        }
        if (offset < segments.map().firstKey()) {
            followerWrites.truncateFullyAndStartAt(offset);
        } else {
            followerWrites.truncateTo(offset);
        }
        return true;
    }

    /**
     * Empties the log and starts it at {@code offset}: a follower whose fetch offset is out of its leader's range
     * (or that builds its state from remote storage, for a tiered topic). Every segment, producer snapshot and
     * leader epoch goes; the log start offset, log end offset, high watermark and recovery point all become
     * {@code offset}, and the log start offset is persisted before returning. A crash part way loads as a shorter
     * log or an empty one, never as the old lineage beside the new start.
     */
    public void truncateFullyAndStartAt(long offset) {
        ensureUsable();
        if (offset < 0) {
            throw new IllegalArgumentException(name + ": cannot start the log at negative offset " + offset);
        }
        events.truncationStarting(this);
        try {
            synchronized (this) {
                ensureUsable();
                followerWrites.truncateFullyAndStartAt(offset);
            }
        } finally {
            events.truncationEnded(this);
        }
    }

    /**
     * Tiered follower path (KIP-405): a follower whose fetch offset is below its leader's local log start empties its
     * log there ({@link #truncateFullyAndStartAt}) and installs what the leader's remote segment ending there carries:
     * the leader-epoch lineage up to that offset and the producer state at it. The follower then answers
     * {@link #endOffsetForEpoch} as its leader would and, promoted, de-duplicates retries and knows the open
     * transactions. Both are made durable before returning (a producer snapshot at the log end). Only on an empty
     * log; epochs starting past its end are ignored.
     *
     * @throws IllegalStateException the log is not empty
     */
    public synchronized void restoreFollowerStateFromRemote(
            List<LeaderEpochCheckpointFile.EpochEntry> leaderEpochs, Map<Long, ProducerStateEntry> producerStates) {
        ensureUsable();
        if (!segments.active().isEmpty() || segments.count() != 1) {
            throw new IllegalStateException(name + ": remote state is restored only into an empty log, after "
                    + "truncateFullyAndStartAt; this one ends at " + logEndOffset);
        }
        try {
            followerWrites.restoreFromRemote(leaderEpochs, producerStates);
        } catch (IOException | RuntimeException e) {
            throw goOffline("restore of the follower state from remote storage", e, true);
        }
    }

    // FollowerWrites' access to the offsets and the roll; the caller holds this.

    /** Publishes the log end offset after a follower append (after the segment's size) or a truncation. */
    void publishLogEndOffset(long offset) {
        logEndOffset = offset;
    }

    /** A truncation to {@code newEnd}: the high watermark, log start offset and recovery point come down to it. */
    void clampOffsetsTo(long newEnd) {
        highWatermark = Math.min(highWatermark, newEnd);
        logStartOffset = Math.min(logStartOffset, newEnd);
        logEndOffset = Math.min(logEndOffset, newEnd);
        flusher.truncateTo(newEnd);
    }

    /** A full truncation: the log now starts and ends at {@code offset}, with nothing pending from remote storage. */
    void resetOffsetsTo(long offset) {
        logStartOffset = offset;
        logEndOffset = offset;
        highWatermark = offset;
        pendingRemoteLogStart = NO_PENDING_REMOTE_START;
        flusher.resetTo(offset);
    }

    /** After a follower append at {@code nowMs}: fsyncs when flush.messages or flush.ms says so. */
    void flushIfDueAfterAppend(LogConfig cfg, long nowMs) {
        if (flusher.dueAfterAppend(logEndOffset, cfg, nowMs)) {
            flush(nowMs);
        }
    }

    /**
     * Tiered follower path (KIP-405), after {@link #restoreFollowerStateFromRemote}: the offsets from
     * {@code remoteLogStartOffset} up to this emptied log's start are held by the remote tier, so the log start offset
     * comes down to it (persisted) and this replica serves them, as its leader does, once it leads. Only on an empty
     * log; never moves the start up.
     */
    public synchronized void extendLogStartIntoRemote(long remoteLogStartOffset) {
        ensureUsable();
        if (!segments.active().isEmpty() || segments.count() != 1) {
            throw new IllegalStateException(name + ": the log start moves into remote storage only on an empty log");
        }
        if (remoteLogStartOffset >= 0 && remoteLogStartOffset < logStartOffset) {
            logStartOffset = remoteLogStartOffset;
            pendingRemoteLogStart = NO_PENDING_REMOTE_START;
            events.logStartOffsetMoved(this, true);
            log.info(
                    "{}: log start offset {} in remote storage (first local offset {})",
                    name,
                    remoteLogStartOffset,
                    localLogStartOffset());
        }
    }

    /** The active segment, after rolling a new one when this append should not go into the current one. */
    private LogSegment maybeRoll(int appendBytes, long lastOffset, LogConfig cfg, long nowMs) throws IOException {
        LogSegment active = segments.active();
        String reason = roller.reasonToRoll(active, appendBytes, lastOffset, cfg, nowMs);
        return active.isEmpty() || reason == null ? active : roll(reason, logEndOffset);
    }

    /** {@link SegmentRoller#roll} at {@code newBaseOffset}, at or above the log end offset. Caller holds this. */
    LogSegment roll(String reason, long newBaseOffset) throws IOException {
        LogConfig cfg = config;
        // snapshots above it are kept: on a tiered log, those of segments not uploaded yet
        long pruneLimit =
                cfg.remoteStorageEnable() && !cfg.remoteLogCopyDisable() ? highestUploadedOffset + 1 : Long.MAX_VALUE;
        LogSegment rolled = roller.roll(reason, newBaseOffset, pruneLimit);
        events.segmentRolled(this);
        return rolled;
    }

    /**
     * Fsyncs the segments rolled since the last sync (their files, the roll's producer snapshot, the directory) and
     * moves the recovery point past them; the owner runs it off the append path after {@link
     * LogEvents#segmentRolled}. A segment that retention or compaction took out meanwhile needs nothing.
     */
    void syncRolledSegments() {
        if (closed || offline || !flusher.rolledUnsynced()) {
            return;
        }
        try {
            flusher.syncRolled(rolledSync);
        } catch (IOException e) {
            throw goOffline("fsync of a rolled segment", e);
        }
    }

    private final LogFlusher.RolledSync rolledSync = new LogFlusher.RolledSync() {
        @Override
        public void sync(LogSegment segment, long nextOffset) throws IOException {
            try {
                segment.flush();
                DurableFiles.fsyncIfExists(io.varve.storage.producer.ProducerSnapshotFiles.path(dir, nextOffset));
            } catch (java.nio.file.NoSuchFileException | java.nio.channels.ClosedChannelException e) {
                if (segments.holds(segment)) {
                    throw e;
                }
            }
        }

        @Override
        public void syncDirectory() throws IOException {
            DurableFiles.fsyncDirectory(dir);
        }
    };

    /** Rolls a non-empty active segment now (tests and tools; appends and retention roll by themselves). */
    synchronized void roll() {
        ensureUsable();
        rollUnlessEmpty("requested");
    }

    /** Rolls the active segment when it is non-empty and segment.ms (less jitter) passed since its first append. */
    public synchronized boolean rollIfSegmentMsElapsed(long nowMs) {
        return !closed
                && !offline
                && roller.segmentMsElapsed(segments.active(), config, nowMs)
                && rollUnlessEmpty("segment.ms");
    }

    private boolean rollUnlessEmpty(String reason) {
        if (segments.active().isEmpty()) {
            return false;
        }
        try {
            roll(reason, logEndOffset);
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
            roll(reason + " deletes every segment", logEndOffset);
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

    /** Fsyncs everything appended so far: rolled segments not synced yet, then the active one. */
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
        if (closed || movedAway) {
            return; // close() flushed already, or the new log of a move holds every byte
        }
        try {
            if (creationUnsynced) {
                metadataFile.fsync();
                DurableFiles.fsyncDirectory(dir);
                creationUnsynced = false;
            }
            // the log end offset first: every byte below it is in the active segment or an older one (synced first)
            long endOffset = logEndOffset;
            epochCache.flush(); // durable before the recovery point passes the epochs it holds
            long startNanos = System.nanoTime();
            if (flusher.flush(endOffset, segments.active(), nowMs, rolledSync)) {
                events.logFlushed(this, System.nanoTime() - startNanos);
            }
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
            if (!offline && !movedAway) {
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
        ensureReadable();
        if (movedAway) {
            throw new KafkaStorageException(name + " moved to another log dir; retry");
        }
    }

    /** Reads stay served by a log a move swapped out, until its delayed close: they were located before the swap. */
    void ensureReadable() {
        if (offline) {
            throw new KafkaStorageException(
                    name + " is offline after an I/O error or corrupt data; see the broker log");
        }
        if (closed) {
            throw new KafkaStorageException(name + " is closed");
        }
    }

    /** Move seam ({@link ReplicaDirMover}), under this log's lock once the new log holds every batch of it. */
    synchronized void retireForMove() {
        movedAway = true;
    }

    /** Whether a replica move swapped this log out. */
    boolean movedAway() {
        return movedAway;
    }

    /** Takes the log offline (every later operation fails) and returns the exception to throw. */
    KafkaStorageException goOffline(String what, Exception cause) {
        return goOffline(what, cause, false);
    }

    /**
     * {@link #goOffline(String, Exception)}; with {@code halfDone} (a truncation failed part way, so the files no
     * longer match what the log holds in memory) even a lack of descriptors takes the log offline: the next load
     * makes it consistent again.
     */
    KafkaStorageException goOffline(String what, Exception cause, boolean halfDone) {
        if (movedAway) {
            // its directory was renamed away by the move: a late file operation failing is no disk fault
            return new KafkaStorageException(name + ": " + what + " after it moved to another log dir", cause);
        }
        if (!halfDone && IoErrors.isResourceExhaustion(cause)) {
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
