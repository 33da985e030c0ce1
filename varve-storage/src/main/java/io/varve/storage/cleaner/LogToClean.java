package io.varve.storage.cleaner;

import io.varve.storage.LogConfig;
import io.varve.storage.PartitionLog;
import io.varve.storage.batch.BatchHeader;
import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Where one compacted log stands for the cleaner at one moment: the rolled segments (immutable), the
 * dirty range {@code [firstDirtyOffset, firstUncleanableOffset)} and how dirty the cleanable part is.
 * The cleanable part ends before the active segment, at the last stable offset (never past the high
 * watermark, so no open transaction is rewritten) and at the first segment
 * whose newest batch is younger than min.compaction.lag.ms; it never starts before the log start offset.
 * Reads segment metadata only, plus one batch header when max.compaction.lag.ms is set.
 *
 * @param segments               the rolled segments, oldest first
 * @param segmentEndOffsets      for each segment, the base offset of the next one (its offsets lie below it)
 * @param cleanBytes             bytes of segments wholly below the first dirty offset
 * @param dirtyBytes             bytes of segments from the one holding the first dirty offset to the
 *                               uncleanable part
 * @param dueByMaxCompactionLag  the oldest dirty batch waited longer than max.compaction.lag.ms
 */
record LogToClean(
        PartitionLog log,
        List<LogSegment> segments,
        List<Long> segmentEndOffsets,
        long firstDirtyOffset,
        long firstUncleanableOffset,
        long cleanBytes,
        long dirtyBytes,
        boolean dueByMaxCompactionLag) {

    /**
     * @param checkpoint the cleaner checkpoint of the log, or -1 without one; moved into
     *                   [log start offset, log end offset] (to the log start offset when outside)
     */
    static LogToClean of(PartitionLog log, long checkpoint, long nowMs) throws IOException {
        List<LogSegment> rolled = log.rolledSegments();
        List<Long> ends = endOffsets(log, rolled);
        long logStart = log.logStartOffset();
        long firstDirty = checkpoint < logStart || checkpoint > log.logEndOffset() ? logStart : checkpoint;
        LogConfig config = log.config();
        long limit = ends.isEmpty() ? firstDirty : ends.get(ends.size() - 1);
        // the last stable offset (at most the high watermark): no segment holding an open transaction is rewritten
        long stableOffset = log.lastStableOffset();
        long cleanBytes = 0;
        long dirtyBytes = 0;
        for (int i = 0; i < rolled.size(); i++) {
            LogSegment segment = rolled.get(i);
            if (ends.get(i) > stableOffset) {
                limit = Math.min(limit, segment.baseOffset());
            }
            if (ends.get(i) > firstDirty
                    && config.minCompactionLagMs() > 0
                    && nowMs - segment.largestTimestampMs() < config.minCompactionLagMs()) {
                limit = Math.min(limit, segment.baseOffset());
            }
            if (ends.get(i) <= firstDirty) {
                cleanBytes += segment.sizeBytes();
            } else if (segment.baseOffset() < limit) {
                dirtyBytes += segment.sizeBytes();
            }
        }
        long firstUncleanable = Math.max(firstDirty, limit);
        boolean due = dirtyBytes > 0
                && config.maxCompactionLagMs() != Long.MAX_VALUE
                && nowMs - firstDirtyTimestampMs(rolled, ends, firstDirty) > config.maxCompactionLagMs();
        return new LogToClean(log, rolled, ends, firstDirty, firstUncleanable, cleanBytes, dirtyBytes, due);
    }

    /** Each rolled segment's end: the next segment's base (segments only vanish at the head or by our own swap). */
    private static List<Long> endOffsets(PartitionLog log, List<LogSegment> rolled) {
        List<Long> bases = log.segmentBaseOffsets(); // read after rolled: holds every successor (both ascend)
        List<Long> ends = new ArrayList<>(rolled.size());
        int next = 0;
        for (LogSegment segment : rolled) {
            while (next < bases.size() && bases.get(next) <= segment.baseOffset()) {
                next++;
            }
            if (next == bases.size()) {
                throw new IllegalStateException(log.dir() + ": rolled segment " + segment + " has no successor");
            }
            ends.add(bases.get(next));
        }
        return ends;
    }

    /** Max timestamp of the batch holding the first dirty offset (Kafka's "first dirty batch" time). */
    private static long firstDirtyTimestampMs(List<LogSegment> rolled, List<Long> ends, long firstDirty)
            throws IOException {
        for (int i = 0; i < rolled.size(); i++) {
            if (ends.get(i) > firstDirty) {
                BatchHeader batch = rolled.get(i).batchContaining(firstDirty);
                return batch != null && batch.maxTimestamp() >= 0
                        ? batch.maxTimestamp()
                        : rolled.get(i).largestTimestampMs();
            }
        }
        return Long.MAX_VALUE;
    }

    /** Dirty bytes over all cleanable bytes; 0 when there are none. */
    double dirtyRatio() {
        long total = cleanBytes + dirtyBytes;
        return total == 0 ? 0 : (double) dirtyBytes / total;
    }

    /** Whether the dirty part qualifies a pass: dirty enough, or waiting longer than max.compaction.lag.ms. */
    boolean needsCleaning() {
        return dirtyBytes > 0 && (dirtyRatio() >= log.config().minCleanableDirtyRatio() || dueByMaxCompactionLag);
    }
}
