package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.ReplicatedBatchValidator;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.storage.epoch.LeaderEpochCache;
import io.varve.storage.producer.ProducerStateEntry;
import io.varve.storage.records.TxnMarker;
import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writes of a follower's log, apart from the leader's: appends of the batches a leader sent (offsets, epochs
 * and producer fields kept) and truncations, to an offset or fully. Every method is called by {@link PartitionLog}
 * holding its lock, after its argument checks; this class owns the order of the steps, which is what makes each
 * change crash-safe (see the storage README), and tells the log which offsets to publish.
 */
final class FollowerWrites {

    /** The log's own category: operators configure one logger for what happens to a partition log. */
    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    private final PartitionLog partitionLog;
    private final String name;
    private final LogSegments segments;
    private final SegmentRoller roller;
    private final LeaderEpochCache epochCache;
    private final ProducerStateStore producers;
    private final LogEvents events;
    private final LongSupplier clockMs;

    FollowerWrites(
            PartitionLog partitionLog,
            LogSegments segments,
            SegmentRoller roller,
            LeaderEpochCache epochCache,
            ProducerStateStore producers,
            LogEvents events,
            LongSupplier clockMs) {
        this.partitionLog = partitionLog;
        this.name = partitionLog.dir().getFileName().toString();
        this.segments = segments;
        this.roller = roller;
        this.epochCache = epochCache;
        this.producers = producers;
        this.events = events;
        this.clockMs = clockMs;
    }

    /** {@link PartitionLog#appendAsFollower}: validates everything first, then appends runs of batches per segment. */
    FollowerAppendResult append(ByteBuffer records) {
        LogConfig cfg = partitionLog.config();
        ByteBuffer batches = records.slice();
        long logEndOffset = partitionLog.logEndOffset();
        ReplicatedBatchValidator.Validated validated = ReplicatedBatchValidator.validate(batches, logEndOffset);
        if (validated.isEmpty()) {
            return FollowerAppendResult.nothing(logEndOffset);
        }
        List<BatchHeader> headers = validated.headers();
        TxnMarker[] markers = decodeMarkers(batches, headers);
        long nowMs = clockMs.getAsLong();
        long firstOffset = headers.get(0).baseOffset();
        // Every check passed: from here on the append happens or the log goes offline.
        try {
            int from = 0;
            while (from < headers.size()) {
                BatchHeader first = headers.get(from);
                LogSegment segment = maybeRoll(first, cfg, nowMs);
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
                partitionLog.publishLogEndOffset(headers.get(to - 1).nextOffset());
                from = to;
            }
        } catch (IOException | RuntimeException e) {
            throw partitionLog.goOffline("follower append at offset " + firstOffset, e);
        }
        partitionLog.flushIfDueAfterAppend(cfg, nowMs);
        return new FollowerAppendResult(
                firstOffset,
                headers.get(headers.size() - 1).lastOffset(),
                headers.size(),
                validated.validBytes(),
                partitionLog.logEndOffset());
    }

    /** The COMMIT or ABORT marker of each control batch (null elsewhere), decoded before anything is written. */
    private static TxnMarker[] decodeMarkers(ByteBuffer batches, List<BatchHeader> headers) {
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
        return markers;
    }

    /**
     * The active segment for a follower's batch, after rolling when it should not go into the current one. The new
     * segment starts at the batch when a gap before it would not fit the indexes' int32 relative offsets.
     */
    private LogSegment maybeRoll(BatchHeader batch, LogConfig cfg, long nowMs) throws IOException {
        LogSegment active = segments.active();
        String reason = roller.reasonToRoll(active, batch.sizeBytes(), batch.lastOffset(), cfg, nowMs);
        // an empty segment takes any batch its indexes can address; one they cannot is left behind empty
        if (reason == null || (active.isEmpty() && active.canHoldOffsetsUpTo(batch.lastOffset()))) {
            return active;
        }
        long logEndOffset = partitionLog.logEndOffset();
        long newBaseOffset = batch.lastOffset() - logEndOffset > Integer.MAX_VALUE ? batch.baseOffset() : logEndOffset;
        return partitionLog.roll(reason, newBaseOffset);
    }

    /**
     * {@link PartitionLog#truncateTo} of an offset below the log end offset and at or above the first segment: the
     * segments above go (newest first), the one holding the offset is cut, fsynced and re-indexed, then the leader
     * epochs starting at or past the new end are dropped, the producer state is rebuilt from the newest snapshot at
     * or below it plus a replay (later snapshots deleted), and the offsets are clamped to the new end.
     */
    void truncateTo(long offset) {
        LogConfig cfg = partitionLog.config();
        long oldEnd = partitionLog.logEndOffset();
        // new reads stop at the offset before any byte goes
        partitionLog.clampOffsetsTo(offset);
        int retired;
        long newEnd;
        try {
            retired = segments.retireAbove(offset, clockMs.getAsLong() + cfg.fileDeleteDelayMs());
            segments.beforeStep("cut segment " + segments.active().baseOffset());
            newEnd = segments.active().truncateTo(offset, cfg.indexIntervalBytes(), cfg.maxIndexSizeBytes());
            partitionLog.publishLogEndOffset(newEnd);
            segments.beforeStep("truncate leader epochs");
            epochCache.truncateFromEnd(newEnd);
            segments.beforeStep("rebuild producer state");
            producers.rebuildTo(segments.map(), newEnd);
        } catch (IOException | RuntimeException e) {
            throw partitionLog.goOffline("truncation to offset " + offset, e, true);
        }
        partitionLog.clampOffsetsTo(newEnd);
        if (retired > 0) {
            events.segmentsRetired(partitionLog, cfg.fileDeleteDelayMs());
        }
        events.logTruncated(partitionLog);
        log.info(
                "{}: truncated to offset {} (log end offset {} before, {} now), {} segments deleted",
                name,
                offset,
                oldEnd,
                newEnd,
                retired);
    }

    /**
     * {@link PartitionLog#truncateFullyAndStartAt}: every segment is retired newest first, then the epochs are cleared
     * and the producer snapshots deleted, then the new segment is created, so that a crash part way loads the old log
     * shorter, or an empty one.
     */
    void truncateFullyAndStartAt(long offset) {
        LogConfig cfg = partitionLog.config();
        long oldStart = partitionLog.logStartOffset();
        long oldEnd = partitionLog.logEndOffset();
        partitionLog.clampOffsetsTo(offset);
        try {
            segments.retireAllAndStartAt(offset, clockMs.getAsLong() + cfg.fileDeleteDelayMs(), () -> {
                // before the new segment exists: a crash then loads an empty log, with no epoch or producer of the
                // old lineage left to be taken for the new one's
                segments.beforeStep("clear leader epochs and producer snapshots");
                epochCache.clear();
                producers.clear();
            });
        } catch (IOException | RuntimeException e) {
            throw partitionLog.goOffline("truncation to start at offset " + offset, e, true);
        }
        partitionLog.resetOffsetsTo(offset);
        events.segmentsRetired(partitionLog, cfg.fileDeleteDelayMs());
        events.logStartOffsetMoved(partitionLog, true);
        events.logTruncated(partitionLog);
        log.info(
                "{}: truncated fully and started at offset {} (offsets were [{}, {}))", name, offset, oldStart, oldEnd);
    }

    /** {@link PartitionLog#restoreFollowerStateFromRemote} into an empty log. */
    void restoreFromRemote(List<EpochEntry> leaderEpochs, Map<Long, ProducerStateEntry> producerStates)
            throws IOException {
        long logEndOffset = partitionLog.logEndOffset();
        for (EpochEntry entry : leaderEpochs) {
            if (entry.startOffset() <= logEndOffset) {
                epochCache.assign(entry.epoch(), entry.startOffset());
            }
        }
        epochCache.flush();
        producers.state().restore(producerStates);
        producers.takeSnapshot(logEndOffset, segments.active());
        producers.publishFirstUnstableOffset();
        log.info(
                "{}: restored {} leader epochs and {} producers from remote storage at offset {}",
                name,
                epochCache.entries().size(),
                producerStates.size(),
                logEndOffset);
    }
}
