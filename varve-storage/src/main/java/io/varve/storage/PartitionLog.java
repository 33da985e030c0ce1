package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.ProduceBatchValidator;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.checkpoint.PartitionMetadataFile;
import io.varve.storage.epoch.LeaderEpochCache;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.producer.ProducerStateEntry;
import io.varve.storage.producer.ProducerStateManager;
import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InconsistentTopicIdException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The log of one partition: an ordered set of segments of which the last is active, plus the leader
 * epoch lineage and the idempotent-producer state.
 *
 * <p>Threading: appends, config updates and close are serialised on this object. {@link #read} takes
 * no lock: it snapshots the log end offset (published after the segment's size) and reads with
 * positional I/O, so it never sees bytes of an append in progress. {@link #flush} takes only a
 * flush lock so an fsync does not block appends.
 */
public final class PartitionLog {

  private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

  private final TopicPartition topicPartition;
  private final Path dir;
  private final String name;
  private final PartitionMetadataFile metadataFile;
  private final ConcurrentSkipListMap<Long, LogSegment> segments;
  private final LeaderEpochCache epochCache;
  /** Guarded by this. */
  private final ProducerStateManager producerState;
  private final Object flushLock = new Object();

  private volatile Uuid topicId;
  private volatile LogConfig config;
  private volatile LogSegment activeSegment;
  private volatile long logStartOffset;
  private volatile long logEndOffset;
  private volatile long highWatermark;
  /** Every offset below it is fsynced. */
  private volatile long recoveryPoint;
  /** Guarded by this; -1 until the first append sets the flush.ms clock. */
  private long lastFlushMs = -1;
  private volatile boolean closed;
  /** Set after an I/O error left the log in doubt: every later operation fails with KafkaStorageException. */
  private volatile boolean offline;

  private PartitionLog(TopicPartition topicPartition, Path dir, Uuid topicId, LogConfig config,
      PartitionMetadataFile metadataFile, LogLoader.LoadedLog loaded, LeaderEpochCache epochCache) {
    this.topicPartition = topicPartition;
    this.dir = dir;
    this.name = dir.getFileName().toString();
    this.topicId = topicId;
    this.config = config;
    this.metadataFile = metadataFile;
    this.segments = loaded.segments();
    this.producerState = loaded.producerState();
    this.epochCache = epochCache;
    this.activeSegment = segments.lastEntry().getValue();
    this.logStartOffset = segments.firstKey();
    this.logEndOffset = loaded.logEndOffset();
    // No high-watermark checkpoint yet: on a single node everything in the log was acknowledged.
    this.highWatermark = logEndOffset;
    this.recoveryPoint = logEndOffset;
  }

  /**
   * Opens the log in {@code dir}, creating the directory and its first segment if needed.
   *
   * @param topicId the topic id to record, or null when loading an existing log that carries its own
   */
  static PartitionLog open(Path dir, TopicPartition topicPartition, Uuid topicId, LogConfig config,
      boolean hadCleanShutdown) {
    String name = dir.getFileName().toString();
    try {
      Files.createDirectories(dir);
      PartitionMetadataFile metadataFile = new PartitionMetadataFile(dir);
      Uuid storedTopicId = metadataFile.read().orElse(Uuid.ZERO_UUID);
      Uuid effectiveTopicId = reconcileTopicId(name, storedTopicId, topicId);
      if (!effectiveTopicId.equals(storedTopicId)) {
        metadataFile.write(effectiveTopicId);
      }
      LogLoader.LoadedLog loaded = LogLoader.load(dir, name, config, hadCleanShutdown);
      LeaderEpochCache epochCache = LeaderEpochCache.load(name, new LeaderEpochCheckpointFile(dir));
      epochCache.truncateFromEnd(loaded.logEndOffset());
      return new PartitionLog(topicPartition, dir, effectiveTopicId, config, metadataFile, loaded, epochCache);
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

  public long logEndOffset() {
    return logEndOffset;
  }

  public long highWatermark() {
    return highWatermark;
  }

  /** Sets the high watermark, clamped to [log start offset, log end offset]. */
  public void updateHighWatermark(long offset) {
    highWatermark = Math.max(logStartOffset, Math.min(offset, logEndOffset));
  }

  public int latestLeaderEpoch() {
    return epochCache.latestEpoch();
  }

  /** The epoch lineage: each epoch and the first offset written in it. */
  public List<LeaderEpochCheckpointFile.EpochEntry> leaderEpochEntries() {
    return epochCache.entries();
  }

  /** Number of segments, the active one included. */
  public int segmentCount() {
    return segments.size();
  }

  /** Producer state per producer id, for inspection (DescribeProducers) and tests. */
  public synchronized Map<Long, ProducerStateEntry> producerStates() {
    return producerState.snapshot();
  }

  /**
   * Validates then appends the batches of a produce request (position to limit of {@code records})
   * atomically as leader: assigns offsets and the leader epoch in place, stamps LogAppendTime if
   * configured, rolls first when the active segment cannot take the bytes. Nothing is written when a
   * check fails; the buffer's position and limit are left as they were.
   */
  public synchronized AppendResult appendAsLeader(ByteBuffer records, int leaderEpoch, long nowMs) {
    ensureUsable();
    LogConfig cfg = config;
    // A slice shares the bytes, so the patches land in the caller's buffer; a read-only one is copied.
    ByteBuffer batches = records.isReadOnly()
        ? ByteBuffer.allocate(records.remaining()).put(records.duplicate()).flip()
        : records.slice();
    List<BatchHeader> headers = ProduceBatchValidator.validate(batches, cfg.maxMessageBytes(), cfg.segmentBytes());

    long firstOffset = logEndOffset;
    long nextOffset = firstOffset;
    ProducerStateManager.PendingAppend pending = producerState.beginAppend();
    for (BatchHeader header : headers) {
      long lastOffset = nextOffset + header.lastOffsetDelta();
      long timestampMs = cfg.logAppendTime() ? nowMs : header.maxTimestamp();
      Optional<BatchMetadata> original = pending.check(header.producerId(), header.producerEpoch(),
          new BatchMetadata(header.baseSequence(), header.lastSequence(), nextOffset, lastOffset, timestampMs));
      if (original.isPresent()) {
        BatchMetadata dup = original.get();
        return new AppendResult(dup.firstOffset(), dup.lastOffset(),
            cfg.logAppendTime() ? dup.timestampMs() : AppendResult.NO_TIMESTAMP, logStartOffset, true);
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
      LogSegment segment = maybeRoll(batches.remaining(), nextOffset - 1, cfg);
      epochCache.assign(leaderEpoch, firstOffset);
      segment.append(batches, cfg.indexIntervalBytes(), cfg.maxIndexSizeBytes());
    } catch (IOException | RuntimeException e) {
      throw goOffline("append at offset " + firstOffset, e);
    }
    pending.commit();
    logEndOffset = nextOffset;
    maybeFlush(cfg, nowMs);
    return new AppendResult(firstOffset, nextOffset - 1,
        cfg.logAppendTime() ? nowMs : AppendResult.NO_TIMESTAMP, logStartOffset, false);
  }

  /** The active segment, after rolling a new one when this append does not fit the current one. */
  private LogSegment maybeRoll(int appendBytes, long lastOffset, LogConfig cfg) throws IOException {
    LogSegment active = activeSegment;
    boolean sizeFull = active.sizeBytes() > cfg.segmentBytes() - appendBytes;
    boolean indexFull = active.index().isFull(cfg.maxIndexSizeBytes());
    boolean offsetsOverflow = !active.canHoldOffsetsUpTo(lastOffset);
    if (active.isEmpty() || !(sizeFull || indexFull || offsetsOverflow)) {
      return active;
    }
    // Fsync before a newer segment exists: recovery after a crash then only needs to scan the active one.
    active.flush();
    long newBaseOffset = logEndOffset;
    LogSegment rolled = LogSegment.create(dir, newBaseOffset);
    DurableFiles.fsyncDirectory(dir);
    segments.put(newBaseOffset, rolled);
    activeSegment = rolled;
    recoveryPoint = Math.max(recoveryPoint, newBaseOffset);
    log.info("{}: rolled segment {} ({} bytes; size full {}, index full {}, offsets overflow {}), "
        + "new active segment starts at offset {}", name, active.baseOffset(), active.sizeBytes(), sizeFull,
        indexFull, offsetsOverflow, newBaseOffset);
    return rolled;
  }

  private void maybeFlush(LogConfig cfg, long nowMs) {
    if (lastFlushMs < 0) {
      lastFlushMs = nowMs;
    }
    if (logEndOffset - recoveryPoint >= cfg.flushMessages() || nowMs - lastFlushMs >= cfg.flushMs()) {
      flush();
      lastFlushMs = nowMs;
    }
  }

  /**
   * Whole batches from the one holding {@code fetchOffset}: at most {@code maxBytes}, yet at least one
   * whole batch when {@code minOneBatch}; never a batch whose base offset is at or past
   * {@code maxOffsetExclusive} (nor past the log end offset). Reads from one segment per call.
   *
   * @throws OffsetOutOfRangeException fetchOffset below the log start offset or above the log end offset
   */
  public LogReadResult read(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
    ensureUsable();
    // log end offset first: it is published after the segment size, so every byte below it is readable
    long endOffset = logEndOffset;
    long startOffset = logStartOffset;
    long hw = highWatermark;
    if (fetchOffset < startOffset || fetchOffset > endOffset) {
      throw new OffsetOutOfRangeException(name + ": fetch offset " + fetchOffset + " is outside ["
          + startOffset + ", " + endOffset + "]");
    }
    long limitOffset = Math.min(maxOffsetExclusive, endOffset);
    ByteBuffer records = ByteBuffer.allocate(0);
    if (fetchOffset < endOffset) {
      try {
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(fetchOffset);
        if (entry == null) {
          entry = segments.firstEntry();
        }
        while (entry != null) {
          ByteBuffer found = entry.getValue().read(fetchOffset, limitOffset, Math.max(maxBytes, 0), minOneBatch);
          if (found != null) {
            records = found;
            break;
          }
          entry = segments.higherEntry(entry.getKey());
        }
      } catch (IOException e) {
        throw new KafkaStorageException(name + ": read at offset " + fetchOffset + " failed", e);
      }
    }
    return new LogReadResult(records, hw, startOffset, endOffset);
  }

  /**
   * The first batch whose max timestamp is at or after {@code timestampMs}, below the high watermark.
   * Batch granularity: the offset is the batch's base offset (the time index of the storage issue will
   * narrow it to the record). Empty when no batch is that recent.
   */
  public Optional<TimestampAndOffset> offsetForTimestamp(long timestampMs) {
    return scanBatches((best, header) -> best == null && header.maxTimestamp() >= timestampMs
        ? new TimestampAndOffset(header.maxTimestamp(), Math.max(header.baseOffset(), logStartOffset),
            header.partitionLeaderEpoch())
        : best);
  }

  /** The batch with the largest max timestamp (the first of equals), at batch granularity. */
  public Optional<TimestampAndOffset> maxTimestampAndOffset() {
    return scanBatches((best, header) -> best == null || header.maxTimestamp() > best.timestamp()
        ? new TimestampAndOffset(header.maxTimestamp(), header.lastOffset(), header.partitionLeaderEpoch())
        : best);
  }

  private Optional<TimestampAndOffset> scanBatches(
      java.util.function.BiFunction<TimestampAndOffset, BatchHeader, TimestampAndOffset> step) {
    ensureUsable();
    long hw = highWatermark;
    TimestampAndOffset best = null;
    try {
      for (LogSegment segment : segments.values()) {
        var scanner = segment.scanner(0, false);
        for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
          if (header.baseOffset() >= hw) {
            return Optional.ofNullable(best);
          }
          if (header.lastOffset() >= logStartOffset) {
            best = step.apply(best, header);
          }
        }
      }
    } catch (IOException e) {
      throw new KafkaStorageException(name + ": scan by timestamp failed", e);
    }
    return Optional.ofNullable(best);
  }

  /** Fsyncs everything appended so far. Segments before the active one were fsynced when rolled. */
  public void flush() {
    synchronized (flushLock) {
      if (closed) {
        return; // close() flushed already
      }
      long endOffset = logEndOffset; // before reading the active segment: see the class comment
      if (endOffset <= recoveryPoint) {
        return;
      }
      try {
        activeSegment.flush();
      } catch (IOException e) {
        throw goOffline("flush", e);
      }
      recoveryPoint = Math.max(recoveryPoint, endOffset);
    }
  }

  /** Flushes and closes the segments; later calls on this log fail. Idempotent. */
  public synchronized void close() {
    if (closed) {
      return;
    }
    try {
      if (!offline) {
        flush();
      }
    } finally {
      closed = true;
      IOException failure = null;
      for (LogSegment segment : segments.values()) {
        try {
          segment.close();
        } catch (IOException e) {
          failure = failure == null ? e : failure;
        }
      }
      if (failure != null) {
        throw new KafkaStorageException(name + ": closing segments failed", failure);
      }
    }
  }

  /** Offsets below it are known to be fsynced. */
  long recoveryPoint() {
    return recoveryPoint;
  }

  boolean isOffline() {
    return offline;
  }

  private void ensureUsable() {
    if (offline) {
      throw new KafkaStorageException(name + " is offline after an earlier I/O error");
    }
    if (closed) {
      throw new KafkaStorageException(name + " is closed");
    }
  }

  private KafkaStorageException goOffline(String what, Exception cause) {
    offline = true;
    log.error("{}: {} failed; the log is offline until restart", name, what, cause);
    return new KafkaStorageException(name + ": " + what + " failed", cause);
  }
}
