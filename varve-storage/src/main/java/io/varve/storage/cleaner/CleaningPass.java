package io.varve.storage.cleaner;

import io.varve.storage.LogConfig;
import io.varve.storage.PartitionLog;
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.producer.ProducerStateEntry;
import io.varve.storage.progress.ProgressReporter;
import io.varve.storage.records.BatchInfo;
import io.varve.storage.records.CompactionFilter;
import io.varve.storage.records.RecordKeys;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.LogSegment;
import io.varve.storage.segment.SegmentFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * One cleaning pass over one log, on the calling thread:
 * <ol>
 *   <li>builds the key to latest offset map over the dirty range, stopping early (at a batch boundary) when
 *       the map might not hold the next batch's keys: the pass then cleans that prefix;</li>
 *   <li>rewrites every segment from the log's first to the one holding the end of the mapped range,
 *       grouped by size, into {@code .cleaned} segments keeping a record only when it is the latest of its
 *       key (records past the mapped range are all kept) and tombstones only until their delete horizon;</li>
 *   <li>swaps them in with {@link PartitionLog#replaceSegments} (atomic and crash-safe).</li>
 * </ol>
 * Abortable between chunks; an aborted or failed pass deletes its uncommitted output.
 */
final class CleaningPass {
    private static final org.slf4j.Logger PROGRESS_LOG = org.slf4j.LoggerFactory.getLogger(LogCleaner.class);

    static final int READ_CHUNK_BYTES = 512 * 1024;

    private final LogToClean target;
    private final PartitionLog log;
    private final LogConfig config;
    private final KeyOffsetMap map;
    private final long nowMs;
    private final BooleanSupplier aborted;
    private final LongSupplier clockMs;
    /** Bytes of source segments rewritten, reported every few seconds. */
    private ProgressReporter progress;

    private final Map<Long, Long> producerLastOffsets = new HashMap<>();
    /** Transactions as the rewrite walks the segments from the log's first; set once the range is known. */
    private CleanedTransactions rewriteTxns;

    private long recordsRead;
    private long recordsKept;
    private long earliestTombstoneHorizonMs = Long.MAX_VALUE;
    /** Where the filter writes; it allocates what the first chunk needs and grows it. */
    private ByteBuffer destination = ByteBuffer.allocate(0);

    CleaningPass(LogToClean target, KeyOffsetMap map, long nowMs, BooleanSupplier aborted) {
        this(target, map, nowMs, aborted, () -> nowMs);
    }

    /** With {@code clockMs} for the progress lines of a long rewrite. */
    CleaningPass(LogToClean target, KeyOffsetMap map, long nowMs, BooleanSupplier aborted, LongSupplier clockMs) {
        this.clockMs = clockMs;
        this.target = target;
        this.log = target.log();
        this.config = log.config();
        this.map = map;
        this.nowMs = nowMs;
        this.aborted = aborted;
    }

    /**
     * Runs the pass; returns what it did, or null when no segment needed rewriting.
     *
     * @throws CancellationException the pass was aborted (its output is gone)
     * @throws IllegalStateException the map cannot hold even one batch's keys
     */
    CleaningResult run() throws IOException {
        long startNanos = System.nanoTime();
        map.clear();
        long endOffset = buildOffsetMap();
        List<SegmentGroups.Input> inputs = new ArrayList<>();
        List<Long> replaced = new ArrayList<>();
        for (int i = 0; i < target.segments().size() && target.segments().get(i).baseOffset() < endOffset; i++) {
            LogSegment segment = target.segments().get(i);
            inputs.add(new SegmentGroups.Input(
                    segment.baseOffset(), target.segmentEndOffsets().get(i), segment.sizeBytes()));
            replaced.add(segment.baseOffset());
        }
        if (inputs.isEmpty()) {
            return null;
        }
        rewriteTxns = new CleanedTransactions(log.abortedTransactions(
                inputs.get(0).baseOffset(), inputs.get(inputs.size() - 1).endOffset()));
        for (ProducerStateEntry producer : log.producerStates().values()) {
            List<BatchMetadata> batches = producer.batches();
            if (!batches.isEmpty()) {
                producerLastOffsets.put(
                        producer.producerId(), batches.get(batches.size() - 1).lastOffset());
            }
        }
        List<LogSegment> outputs = new ArrayList<>();
        long bytesBefore = 0;
        progress = ProgressReporter.start(
                "Compacting " + log.topicPartition() + " (rewriting " + inputs.size() + " segments)",
                inputs.stream().mapToLong(SegmentGroups.Input::sizeBytes).sum(),
                "bytes",
                clockMs,
                ProgressReporter.DEFAULT_INTERVAL_MS,
                PROGRESS_LOG::info);
        // A tiered log keeps its tombstones: remote copies of older values are never rewritten, so the tombstone is
        // what tells a reader from offset 0 that the key is gone (see varve-tiered's README, compacted topics).
        long deleteRetentionMs = config.remoteStorageEnable() ? Long.MAX_VALUE : config.deleteRetentionMs();
        try (CompactionFilter filter = new CompactionFilter(new Rules(), endOffset, nowMs, deleteRetentionMs)) {
            boolean first = true;
            for (List<Integer> group : SegmentGroups.bySize(inputs, config.segmentBytes())) {
                List<LogSegment> sources =
                        group.stream().map(target.segments()::get).toList();
                bytesBefore += sources.stream().mapToLong(LogSegment::sizeBytes).sum();
                LogSegment output = writeGroup(sources, first, filter);
                if (output != null) {
                    outputs.add(output);
                }
                first = false;
            }
            checkAborted();
            progress.finish();
            log.replaceSegments(outputs, replaced);
        } catch (KafkaStorageException e) {
            // the swap failed: the log is offline or closed, and its manifest may be committed, so the loader decides
            closeQuietly(outputs, e, false);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(outputs, e, true);
            throw e;
        }
        long bytesAfter = outputs.stream().mapToLong(LogSegment::sizeBytes).sum();
        return new CleaningResult(
                log.topicPartition(),
                target.firstDirtyOffset(),
                endOffset,
                replaced.size(),
                outputs.size(),
                bytesBefore,
                bytesAfter,
                recordsRead,
                recordsKept,
                earliestTombstoneHorizonMs,
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    /** Fills the map from the dirty range; returns where it ends (the first offset whose key is not in it). */
    private long buildOffsetMap() throws IOException {
        long firstDirty = target.firstDirtyOffset();
        long firstUncleanable = target.firstUncleanableOffset();
        MapFiller filler = new MapFiller(
                firstDirty,
                firstUncleanable,
                new CleanedTransactions(log.abortedTransactions(firstDirty, firstUncleanable)));
        for (int i = 0; i < target.segments().size(); i++) {
            LogSegment segment = target.segments().get(i);
            if (target.segmentEndOffsets().get(i) <= firstDirty) {
                continue;
            }
            if (segment.baseOffset() >= firstUncleanable) {
                break;
            }
            int from = segment.baseOffset() < firstDirty ? segment.index().lookup(firstDirty) : 0;
            SegmentBatchReader reader =
                    new SegmentBatchReader(segment, from <= segment.sizeBytes() ? from : 0, READ_CHUNK_BYTES);
            for (ByteBuffer chunk = reader.next(); chunk != null; chunk = reader.next()) {
                checkAborted();
                long stoppedAt = RecordKeys.visit(chunk, filler);
                if (filler.full) {
                    if (map.size() == 0) {
                        throw new IllegalStateException(
                                log.dir().getFileName() + ": the cleaner's offset map of " + map.slots()
                                        + " slots cannot hold the keys of the batch at offset " + stoppedAt
                                        + "; raise log.cleaner.dedupe.buffer.size");
                    }
                    return stoppedAt;
                }
            }
        }
        return firstUncleanable;
    }

    /** Writes one group's kept batches to a new {@code .cleaned} segment; null when empty and not the first. */
    private LogSegment writeGroup(List<LogSegment> sources, boolean first, CompactionFilter filter) throws IOException {
        LogSegment output = createCleaned(log.dir(), sources.get(0).baseOffset());
        try {
            long largestTimestampMs = Long.MIN_VALUE;
            for (LogSegment source : sources) {
                largestTimestampMs = Math.max(largestTimestampMs, source.largestTimestampMs());
                SegmentBatchReader reader = new SegmentBatchReader(source, 0, READ_CHUNK_BYTES);
                for (ByteBuffer chunk = reader.next(); chunk != null; chunk = reader.next()) {
                    checkAborted();
                    progress.advance(chunk.remaining());
                    CompactionFilter.Result kept = filter.filter(chunk, destination);
                    destination = kept.output();
                    recordsRead += kept.recordsRead();
                    recordsKept += kept.recordsKept();
                    earliestTombstoneHorizonMs =
                            Math.min(earliestTombstoneHorizonMs, kept.earliestTombstoneHorizonMs());
                    if (kept.output().hasRemaining()) {
                        output.append(kept.output(), config.indexIntervalBytes(), config.maxIndexSizeBytes());
                    }
                    // an abort stays indexed while data of it is left; its marker is in what was just written
                    for (AbortedTxn aborted : rewriteTxns.drainAbortsToIndex()) {
                        output.txnIndex().append(aborted);
                    }
                }
            }
            if (output.isEmpty() && !first) {
                output.closeAndDelete(); // the previous cleaned segment's offset range simply grows over the gap
                return null;
            }
            output.finish();
            if (output.isEmpty()) {
                // an empty segment's age is its file's: keep the replaced data's, so retention (compact,delete) sees it
                Files.setLastModifiedTime(output.logFile(), FileTime.fromMillis(Math.max(0, largestTimestampMs)));
            }
            return output;
        } catch (IOException | RuntimeException e) {
            closeQuietly(List.of(output), e, true);
            throw e;
        }
    }

    /** A fresh {@code .cleaned} segment; files left by an earlier failed pass at that base are removed first. */
    private static LogSegment createCleaned(Path dir, long baseOffset) throws IOException {
        for (String kind : new String[] {
            SegmentFiles.LOG_SUFFIX,
            SegmentFiles.INDEX_SUFFIX,
            SegmentFiles.TIME_INDEX_SUFFIX,
            SegmentFiles.TXN_INDEX_SUFFIX
        }) {
            Files.deleteIfExists(dir.resolve(SegmentFiles.fileName(baseOffset, kind + SegmentFiles.CLEANED_SUFFIX)));
        }
        return LogSegment.createCleaned(dir, baseOffset);
    }

    private void checkAborted() {
        if (aborted.getAsBoolean()) {
            throw new CancellationException(log.dir().getFileName() + ": cleaning aborted");
        }
    }

    private static void closeQuietly(List<LogSegment> segments, Exception cause, boolean delete) {
        for (LogSegment segment : segments) {
            try {
                if (delete) {
                    segment.closeAndDelete();
                } else {
                    segment.close();
                }
            } catch (IOException e) {
                cause.addSuppressed(e);
            }
        }
    }

    /**
     * Which batches of the dirty range feed the map: data batches outside aborted transactions, while their keys
     * surely fit (the range ends at the last stable offset, so every transaction in it is complete).
     */
    private final class MapFiller implements RecordKeys.KeyVisitor {
        private final long firstDirty;
        private final long firstUncleanable;
        private final CleanedTransactions txns;
        private boolean full;

        MapFiller(long firstDirty, long firstUncleanable, CleanedTransactions txns) {
            this.firstDirty = firstDirty;
            this.firstUncleanable = firstUncleanable;
            this.txns = txns;
        }

        @Override
        public RecordKeys.Decision batch(BatchInfo batch) {
            if (batch.lastOffset() < firstDirty || batch.baseOffset() >= firstUncleanable) {
                return RecordKeys.Decision.SKIP;
            }
            if (batch.control()) {
                txns.endsEmptyTransaction(batch); // ends the producer's transaction in the walk
                return RecordKeys.Decision.SKIP;
            }
            if (map.remaining() < batch.recordCount()) {
                full = true;
                return RecordKeys.Decision.STOP;
            }
            return txns.isAborted(batch) ? RecordKeys.Decision.SKIP : RecordKeys.Decision.READ;
        }

        @Override
        public void record(long offset, ByteBuffer key, boolean hasValue) {
            if (key != null) {
                map.put(key, offset);
            }
        }
    }

    /** The cleaner's rules for the records filter. */
    private final class Rules implements CompactionFilter.Rules {
        @Override
        public boolean keepUntouched(BatchInfo batch) {
            return false;
        }

        @Override
        public CompactionFilter.TxnFate txnFate(BatchInfo batch) {
            if (batch.control()) {
                return rewriteTxns.endsEmptyTransaction(batch)
                        ? CompactionFilter.TxnFate.EMPTY_TXN_MARKER
                        : CompactionFilter.TxnFate.NONE;
            }
            return rewriteTxns.isAborted(batch) ? CompactionFilter.TxnFate.ABORTED : CompactionFilter.TxnFate.NONE;
        }

        @Override
        public boolean keepWhenEmpty(BatchInfo batch) {
            // the producer's last batch carries its last sequence: rebuilding producer state from the log needs it
            Long last = batch.hasProducerId() ? producerLastOffsets.get(batch.producerId()) : null;
            return last != null && last == batch.lastOffset();
        }

        @Override
        public boolean isLatest(ByteBuffer key, long offset) {
            return offset >= map.get(key);
        }
    }
}
