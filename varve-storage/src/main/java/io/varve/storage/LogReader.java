package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.BatchHeaderScanner;
import io.varve.storage.segment.CorruptSegmentException;
import io.varve.storage.segment.LogSegment;
import io.varve.storage.segment.TransactionIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;

/**
 * The read side of a partition log, lock-free: whole-batch reads (copied or as a zero-copy slice) and
 * ListOffsets by time at batch granularity among the offsets in [log start offset, high watermark).
 * Corrupt data found by a read takes the log offline: it is never served.
 */
final class LogReader {

    /** Where a read found its batches and the offsets it saw. */
    private record Located(
            LogSegments.Found found,
            long highWatermark,
            long logStartOffset,
            long logEndOffset,
            long lastStableOffset) {}

    private final PartitionLog log;
    private final LogSegments segments;
    private final String name;

    LogReader(PartitionLog log, LogSegments segments, String name) {
        this.log = log;
        this.segments = segments;
        this.name = name;
    }

    LogReadResult read(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        Located located = locate(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
        LogSegments.Found found = located.found();
        ByteBuffer records = ByteBuffer.allocate(0);
        if (found.slice() != null && found.slice().sizeBytes() > 0) {
            records = readCopy(found, fetchOffset);
        }
        return new LogReadResult(records, located.highWatermark(), located.logStartOffset(), located.logEndOffset());
    }

    LogSlice readSlice(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        Located located = locate(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
        LogSegments.Found found = located.found();
        boolean empty = found.slice() == null || found.slice().sizeBytes() == 0;
        java.nio.channels.FileChannel channel = null;
        ByteBuffer copied = null;
        if (!empty) {
            try {
                channel = found.segment().channel();
            } catch (io.varve.storage.fs.FileHandlesExhaustedException e) {
                // no descriptor of its own: the bytes are copied through a short-lived one instead of sent from it
                copied = readCopy(found, fetchOffset);
            } catch (IOException e) {
                throw new KafkaStorageException(
                        name + ": read at offset " + fetchOffset + " failed: " + e.getMessage(), e);
            }
        }
        return new LogSlice(
                channel,
                empty ? 0 : found.slice().position(),
                empty ? 0 : found.slice().sizeBytes(),
                located.highWatermark(),
                located.logStartOffset(),
                located.logEndOffset(),
                located.lastStableOffset(),
                empty ? fetchOffset : found.slice().nextOffset(),
                copied);
    }

    private ByteBuffer readCopy(LogSegments.Found found, long fetchOffset) {
        try {
            return found.segment()
                    .readAt(found.slice().position(), found.slice().sizeBytes());
        } catch (IOException e) {
            throw new KafkaStorageException(name + ": read at offset " + fetchOffset + " failed: " + e.getMessage(), e);
        }
    }

    private Located locate(long fetchOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        log.ensureReadable();
        // log end offset first: it is published after the segment size, so every byte below it is readable
        long endOffset = log.logEndOffset();
        long startOffset = log.logStartOffset();
        long hw = log.highWatermark();
        long lso = log.lastStableOffset(hw, startOffset);
        if (fetchOffset < startOffset || fetchOffset > endOffset) {
            throw outOfRange(fetchOffset, startOffset, endOffset);
        }
        if (fetchOffset == endOffset) {
            return new Located(LogSegments.Found.NONE, hw, startOffset, endOffset, lso);
        }
        LogSegments.Found found;
        try {
            found = segments.locate(
                    fetchOffset, Math.min(maxOffsetExclusive, endOffset), Math.max(maxBytes, 0), minOneBatch);
        } catch (IOException e) {
            throw failed("read at offset " + fetchOffset, e);
        }
        if (found == null) {
            throw outOfRange(fetchOffset, log.logStartOffset(), endOffset); // retention removed it meanwhile
        }
        return new Located(found, hw, startOffset, endOffset, lso);
    }

    /**
     * The aborted transactions a read_committed reader of [{@code fetchOffset}, {@code upperBoundOffset}) must
     * know: those overlapping the range, from the transaction indexes of the segment holding fetchOffset on
     * (an abort's entry lives in the segment of its marker, at or after every offset of its transaction).
     */
    List<AbortedTxn> abortedTransactions(long fetchOffset, long upperBoundOffset) {
        log.ensureReadable();
        List<AbortedTxn> found = new ArrayList<>();
        if (upperBoundOffset <= fetchOffset) {
            return found;
        }
        NavigableMap<Long, LogSegment> map = segments.map();
        Long floor = map.floorKey(fetchOffset);
        try {
            for (LogSegment segment :
                    map.tailMap(floor == null ? fetchOffset : floor, true).values()) {
                TransactionIndex.Collected collected = segment.txnIndex().collect(fetchOffset, upperBoundOffset);
                found.addAll(collected.aborted());
                if (collected.complete()) {
                    break;
                }
            }
        } catch (IOException e) {
            throw failed("lookup of aborted transactions", e);
        }
        return found;
    }

    private OffsetOutOfRangeException outOfRange(long fetchOffset, long startOffset, long endOffset) {
        return new OffsetOutOfRangeException(
                name + ": fetch offset " + fetchOffset + " is outside [" + startOffset + ", " + endOffset + "]");
    }

    /** The first batch whose max timestamp is at or after {@code timestampMs}; its offset clamped to the log start. */
    Optional<TimestampAndOffset> offsetForTimestamp(long timestampMs) {
        log.ensureReadable();
        long logStartOffset = log.logStartOffset();
        long highWatermark = log.highWatermark();
        NavigableMap<Long, LogSegment> map = segments.map();
        try {
            for (Map.Entry<Long, LogSegment> entry : map.entrySet()) {
                if (entry.getKey() >= highWatermark) {
                    break;
                }
                if (whollyBelow(map, entry.getKey(), logStartOffset)) {
                    continue;
                }
                BatchHeader found =
                        entry.getValue().firstBatchWithTimestampAtLeast(timestampMs, logStartOffset, highWatermark);
                if (found != null) {
                    return Optional.of(new TimestampAndOffset(
                            found.maxTimestamp(),
                            Math.max(found.baseOffset(), logStartOffset),
                            found.partitionLeaderEpoch()));
                }
            }
        } catch (IOException e) {
            throw failed("lookup by timestamp", e);
        }
        return Optional.empty();
    }

    /**
     * The batch with the largest max timestamp (the first of equals): its timestamp, last offset and leader
     * epoch. Uses each segment's recorded max; scans headers only when that batch lies outside the
     * readable range.
     */
    Optional<TimestampAndOffset> maxTimestampAndOffset() {
        log.ensureReadable();
        long logStartOffset = log.logStartOffset();
        long highWatermark = log.highWatermark();
        NavigableMap<Long, LogSegment> map = segments.map();
        LogSegment best = null;
        LogSegment.MaxTimestamp bestMax = null;
        for (Map.Entry<Long, LogSegment> entry : map.entrySet()) {
            if (entry.getKey() >= highWatermark) {
                break;
            }
            LogSegment.MaxTimestamp max = entry.getValue().maxTimestamp();
            if (max != null
                    && !whollyBelow(map, entry.getKey(), logStartOffset)
                    && (bestMax == null || max.timestampMs() > bestMax.timestampMs())) {
                best = entry.getValue();
                bestMax = max;
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        try {
            BatchHeader batch = best.batchContaining(bestMax.offset());
            if (batch != null && batch.baseOffset() < highWatermark && batch.lastOffset() >= logStartOffset) {
                return Optional.of(at(batch));
            }
            return scanForMax(map, logStartOffset, highWatermark);
        } catch (IOException e) {
            throw failed("lookup of the max timestamp", e);
        }
    }

    private static Optional<TimestampAndOffset> scanForMax(
            NavigableMap<Long, LogSegment> map, long logStartOffset, long highWatermark) throws IOException {
        BatchHeader best = null;
        for (LogSegment segment : map.values()) {
            BatchHeaderScanner scanner = segment.scanner(0, false);
            for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
                if (header.baseOffset() >= highWatermark) {
                    return Optional.ofNullable(best).map(LogReader::at);
                }
                if (header.lastOffset() >= logStartOffset
                        && (best == null || header.maxTimestamp() > best.maxTimestamp())) {
                    best = header;
                }
            }
        }
        return Optional.ofNullable(best).map(LogReader::at);
    }

    private static TimestampAndOffset at(BatchHeader batch) {
        return new TimestampAndOffset(batch.maxTimestamp(), batch.lastOffset(), batch.partitionLeaderEpoch());
    }

    private static boolean whollyBelow(NavigableMap<Long, LogSegment> map, long baseOffset, long logStartOffset) {
        Long next = map.higherKey(baseOffset);
        return next != null && next <= logStartOffset;
    }

    private KafkaStorageException failed(String what, IOException e) {
        return e instanceof CorruptSegmentException
                ? log.goOffline(what + " found corrupt data", e)
                : new KafkaStorageException(name + ": " + what + " failed", e);
    }
}
