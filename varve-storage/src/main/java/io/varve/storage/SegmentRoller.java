package io.varve.storage;

import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When and how a partition log's active segment rolls: before an append that would pass segment.bytes, when an
 * index is full, when the append's offsets would not fit the indexes' int32 relative offsets, or once segment.ms
 * (less this partition's share of segment.jitter.ms) passed since the segment's first append. A roll finishes the
 * old segment (final time-index entry) before the new one exists and snapshots the producer state at the new base;
 * it fsyncs nothing: the old segment and the snapshot are synced by {@link LogFlusher#syncRolled} after the roll,
 * on a background thread, and only then does the recovery point pass them (Kafka also flushes a rolled segment
 * asynchronously). Called under the log's lock.
 */
final class SegmentRoller {

    /** The log's own category: operators configure one logger for what happens to a partition log. */
    private static final Logger log = LoggerFactory.getLogger(PartitionLog.class);

    private final String name;
    private final LogSegments segments;
    private final LogFlusher flusher;
    private final ProducerStateStore producers;

    SegmentRoller(String name, LogSegments segments, LogFlusher flusher, ProducerStateStore producers) {
        this.name = name;
        this.segments = segments;
        this.flusher = flusher;
        this.producers = producers;
    }

    /**
     * Why {@code active} should roll before an append of {@code appendBytes} ending at {@code lastOffset}, or null
     * when it should not (an empty segment's caller decides whether that matters).
     */
    String reasonToRoll(LogSegment active, int appendBytes, long lastOffset, LogConfig cfg, long nowMs) {
        boolean sizeFull = active.sizeBytes() > cfg.segmentBytes() - appendBytes;
        boolean indexFull = active.indexesFull(cfg.maxIndexSizeBytes());
        boolean offsetsOverflow = !active.canHoldOffsetsUpTo(lastOffset);
        boolean timeElapsed = segmentMsElapsed(active, cfg, nowMs);
        if (!(sizeFull || indexFull || offsetsOverflow || timeElapsed)) {
            return null;
        }
        return ((sizeFull ? "size full " : "")
                        + (indexFull ? "index full " : "")
                        + (offsetsOverflow ? "offsets overflow " : "")
                        + (timeElapsed ? "segment.ms elapsed" : ""))
                .trim();
    }

    /** {@link LogConfig#rollMs} less this partition's share of segment.jitter.ms since the segment's first append. */
    boolean segmentMsElapsed(LogSegment active, LogConfig cfg, long nowMs) {
        long rollMs = cfg.rollMs();
        long jitterMs = cfg.segmentJitterMs() == 0
                ? 0
                : Math.floorMod(name.hashCode(), Math.min(cfg.segmentJitterMs(), rollMs));
        long startMs = active.rollBaseMs();
        return startMs >= 0 && nowMs - startMs > rollMs - jitterMs;
    }

    /**
     * Makes a new empty active segment at {@code newBaseOffset}, at or above the log end offset: a follower whose
     * next batch starts past a gap (compaction on the leader) may start the segment at that batch. No batch lies in
     * between, so the producer snapshot describes the state at the new base offset, and is named after it; snapshots
     * above {@code snapshotPruneLimit} are kept (a tiered log's, of segments not uploaded yet).
     */
    LogSegment roll(String reason, long newBaseOffset, long snapshotPruneLimit) throws IOException {
        LogSegment old = segments.active();
        LogSegment rolled = segments.roll(newBaseOffset);
        flusher.rolled(old, newBaseOffset);
        producers.takeSnapshot(newBaseOffset, rolled, snapshotPruneLimit, false);
        log.info(
                "{}: rolled segment {} ({} bytes; {}), new active segment starts at offset {}",
                name,
                old.baseOffset(),
                old.sizeBytes(),
                reason.trim(),
                newBaseOffset);
        return rolled;
    }
}
