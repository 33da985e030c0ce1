package io.varve.storage;

import io.varve.storage.fs.DurableFiles;
import io.varve.storage.producer.ProducerSnapshotFiles;
import io.varve.storage.segment.LogSegment;
import io.varve.storage.segment.SegmentFiles;
import io.varve.storage.segment.SegmentSwap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segment set of one partition log: the segments by base offset (the last one active) and the
 * retired ones waiting for their delayed deletion. Owns the file-level mechanics of rolling, retiring
 * and swapping segments; which offsets that moves is the log's business. Mutators are called with
 * the log's lock held; readers use the concurrent map without locks.
 */
final class LogSegments {

    private static final Logger log = LoggerFactory.getLogger(LogSegments.class);

    /** A step that may fail with an I/O error. */
    @FunctionalInterface
    interface IoAction {
        void run() throws IOException;
    }

    /** A segment out of the log, waiting for its files to be deleted. */
    private record RetiredSegment(LogSegment segment, long deleteAtMs) {}

    /** Where a read found its batches; {@link #NONE} when no segment holds any. */
    record Found(LogSegment segment, LogSegment.Slice slice) {
        static final Found NONE = new Found(null, null);
    }

    private final Path dir;
    private final String name;
    private final ConcurrentSkipListMap<Long, LogSegment> segments;
    private final ConcurrentLinkedQueue<RetiredSegment> retired = new ConcurrentLinkedQueue<>();
    private volatile LogSegment active;
    private volatile StepFaults stepFaults = StepFaults.NONE;

    LogSegments(Path dir, String name, ConcurrentSkipListMap<Long, LogSegment> loaded) {
        if (loaded.isEmpty()) {
            throw new IllegalArgumentException(name + ": a log has at least its active segment");
        }
        this.dir = dir;
        this.name = name;
        this.segments = loaded;
        this.active = loaded.lastEntry().getValue();
    }

    LogSegment active() {
        return active;
    }

    /** The live segments by base offset; callers only read it. */
    NavigableMap<Long, LogSegment> map() {
        return segments;
    }

    int count() {
        return segments.size();
    }

    List<Long> baseOffsets() {
        return List.copyOf(segments.keySet());
    }

    long sizeBytes() {
        return LogRetention.sizeBytes(segments);
    }

    /** The segments before the active one, oldest first. */
    List<LogSegment> rolled() {
        return List.copyOf(segments.headMap(active.baseOffset()).values());
    }

    /** {@link RolledSegment} views of the rolled segments, oldest first, each ending before its successor. */
    List<RolledSegment> rolledViews() {
        List<LogSegment> rolled = rolled();
        List<RolledSegment> views = new ArrayList<>(rolled.size());
        for (LogSegment segment : rolled) {
            Long next = segments.higherKey(segment.baseOffset());
            if (next == null) {
                break; // retired or swapped meanwhile: the next call sees the new layout
            }
            views.add(new RolledSegment(
                    segment.baseOffset(),
                    next - 1,
                    largestTimestampMs(segment),
                    segment.sizeBytes(),
                    segment.logFile(),
                    segment.index().file(),
                    segment.timeIndex().file(),
                    ProducerSnapshotFiles.path(dir, next)));
        }
        return views;
    }

    /** What retention compares (the file's mtime when no batch carries a timestamp); -1 when even that fails. */
    private static long largestTimestampMs(LogSegment segment) {
        try {
            return segment.largestTimestampMs();
        } catch (IOException e) {
            return -1; // retired meanwhile: the next call sees the new layout
        }
    }

    /**
     * Finishes the active segment (final time-index entry, indexes trimmed) and makes a new empty one at {@code
     * newBaseOffset}. Nothing is fsynced here: the old segment, the new files' directory entries and the roll's
     * producer snapshot are made durable by {@link LogFlusher#syncRolled} later, off the append path, and the recovery
     * point stays below the old segment until then, so a crash before it recovers that segment.
     */
    LogSegment roll(long newBaseOffset) throws IOException {
        active.finishUnsynced();
        LogSegment rolled = LogSegment.create(dir, newBaseOffset);
        segments.put(newBaseOffset, rolled);
        active = rolled;
        return rolled;
    }

    /** Whether {@code segment} is still one of the log's (retention or a swap may have taken it out). */
    boolean holds(LogSegment segment) {
        return segments.get(segment.baseOffset()) == segment;
    }

    /**
     * Takes head segments (never the active one) out of the map, renames their files to {@code .deleted}
     * and deletes the producer snapshots named after them. The channels stay open until
     * {@link #deleteRetired} passes {@code deleteAtMs}.
     */
    void retire(List<LogSegment> doomed, long deleteAtMs) throws IOException {
        for (LogSegment segment : doomed) {
            if (segment == active || segments.firstEntry().getValue() != segment) {
                throw new IllegalStateException(
                        name + ": only head segments before the active one can be retired: " + segment);
            }
            segments.remove(segment.baseOffset());
            segment.changeStateSuffix(SegmentFiles.DELETED_SUFFIX);
            Files.deleteIfExists(ProducerSnapshotFiles.path(dir, segment.baseOffset()));
            retired.add(new RetiredSegment(segment, deleteAtMs));
        }
        DurableFiles.fsyncDirectory(dir);
    }

    /**
     * Truncation: retires every segment whose base offset is above {@code offset}, newest first (so that a crash
     * part way leaves a shorter log, never one with a hole), and makes the segment holding {@code offset} active;
     * the caller cuts that one. Their producer snapshots go with them. Reads in flight finish on the retired
     * segments' open channels until {@code deleteAtMs}.
     *
     * @return how many segments were retired
     */
    int retireAbove(long offset, long deleteAtMs) throws IOException {
        Long floor = segments.floorKey(offset);
        if (floor == null) {
            throw new IllegalArgumentException(name + ": no segment holds offset " + offset);
        }
        List<LogSegment> doomed = new ArrayList<>(segments.tailMap(floor, false).values());
        java.util.Collections.reverse(doomed);
        active = segments.get(floor);
        for (LogSegment segment : doomed) {
            stepFaults.before("retire segment " + segment.baseOffset());
            segment.changeStateSuffix(SegmentFiles.DELETED_SUFFIX);
            DurableFiles.fsyncDirectory(dir); // one by one: renames reordered by a crash could leave a hole
            segments.remove(segment.baseOffset());
            Files.deleteIfExists(ProducerSnapshotFiles.path(dir, segment.baseOffset()));
            retired.add(new RetiredSegment(segment, deleteAtMs));
        }
        return doomed.size();
    }

    /**
     * Retires every segment, newest first, then starts the log afresh with an empty active segment at
     * {@code offset}. Before the new segment exists the directory holds no segment, which loads as an empty log.
     */
    void retireAllAndStartAt(long offset, long deleteAtMs, IoAction beforeNewSegment) throws IOException {
        List<LogSegment> doomed = new ArrayList<>(segments.values());
        java.util.Collections.reverse(doomed);
        for (LogSegment segment : doomed) {
            stepFaults.before("retire segment " + segment.baseOffset());
            segment.changeStateSuffix(SegmentFiles.DELETED_SUFFIX);
            DurableFiles.fsyncDirectory(dir);
        }
        beforeNewSegment.run();
        stepFaults.before("create segment " + offset);
        LogSegment fresh = LogSegment.create(dir, offset);
        DurableFiles.fsyncDirectory(dir);
        // the new one in before the old ones out: the map is never empty
        segments.put(offset, fresh);
        active = fresh;
        for (LogSegment segment : doomed) {
            segments.remove(segment.baseOffset(), segment);
            retired.add(new RetiredSegment(segment, deleteAtMs));
        }
    }

    /** The test seam's hook for steps the log itself takes (see {@link StepFaults}). */
    void beforeStep(String step) throws IOException {
        stepFaults.before(step);
    }

    /** Closes and deletes the files of retired segments whose time has come; returns how many. */
    int deleteRetired(long nowMs) {
        int deleted = 0;
        synchronized (retired) {
            for (Iterator<RetiredSegment> it = retired.iterator(); it.hasNext(); ) {
                RetiredSegment next = it.next();
                if (next.deleteAtMs() <= nowMs) {
                    it.remove();
                    try {
                        next.segment().closeAndDelete();
                    } catch (IOException e) {
                        log.warn(
                                "{}: could not delete {}; the next start-up will",
                                name,
                                next.segment().logFile(),
                                e);
                    }
                    deleted++;
                }
            }
        }
        return deleted;
    }

    /**
     * The segment and slice holding whole batches from {@code fetchOffset} (see {@link LogSegment#locate});
     * null when no segment starts at or below {@code fetchOffset} any more (retention removed it).
     */
    Found locate(long fetchOffset, long maxOffsetExclusive, int maxBytes, boolean minOneBatch) throws IOException {
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(fetchOffset);
        if (entry == null) {
            return null;
        }
        for (; entry != null; entry = segments.higherEntry(entry.getKey())) {
            LogSegment.Slice slice = entry.getValue().locate(fetchOffset, maxOffsetExclusive, maxBytes, minOneBatch);
            if (slice != null) {
                return new Found(entry.getValue(), slice);
            }
        }
        return Found.NONE;
    }

    /**
     * Replaces a contiguous run of rolled segments by cleaned ones with the {@link SegmentSwap} protocol;
     * the replaced ones are retired until {@code deleteAtMs}.
     *
     * @throws IllegalArgumentException the run or the cleaned segments do not qualify (nothing changed)
     */
    void swap(List<LogSegment> cleaned, List<Long> replacedBaseOffsets, long deleteAtMs) throws IOException {
        List<LogSegment> replaced = checkSwap(cleaned, replacedBaseOffsets);
        List<Long> cleanedBaseOffsets =
                cleaned.stream().map(LogSegment::baseOffset).toList();
        StepFaults faults = stepFaults;
        faults.before("flush cleaned segments");
        for (LogSegment segment : cleaned) {
            segment.flush();
        }
        faults.before("write manifest");
        SegmentSwap.writeManifest(dir, new SegmentSwap.Manifest(replacedBaseOffsets, cleanedBaseOffsets));
        for (LogSegment segment : replaced) {
            faults.before("retire replaced segment " + segment.baseOffset());
            segment.changeStateSuffix(SegmentFiles.DELETED_SUFFIX);
        }
        for (LogSegment segment : cleaned) {
            faults.before("promote cleaned segment " + segment.baseOffset());
            segment.changeStateSuffix("");
        }
        faults.before("fsync directory");
        DurableFiles.fsyncDirectory(dir);
        // new ones in before old ones out: a reader in between still finds valid (old) batches
        for (LogSegment segment : cleaned) {
            segments.put(segment.baseOffset(), segment);
        }
        Set<Long> reused = new HashSet<>(cleanedBaseOffsets);
        for (LogSegment segment : replaced) {
            if (!reused.contains(segment.baseOffset())) {
                segments.remove(segment.baseOffset());
            }
            retired.add(new RetiredSegment(segment, deleteAtMs));
        }
        faults.before("delete manifest");
        SegmentSwap.deleteManifest(dir);
    }

    void injectStepFaults(StepFaults faults) {
        stepFaults = faults;
    }

    private List<LogSegment> checkSwap(List<LogSegment> cleaned, List<Long> replacedBaseOffsets) {
        if (cleaned.isEmpty() || replacedBaseOffsets.isEmpty()) {
            throw new IllegalArgumentException(name + ": a swap needs cleaned and replaced segments");
        }
        List<LogSegment> replaced = new ArrayList<>();
        Long expected = replacedBaseOffsets.get(0);
        for (long base : replacedBaseOffsets) {
            LogSegment segment = segments.get(base);
            if (segment == null || segment == active || expected == null || base != expected) {
                throw new IllegalArgumentException(name + ": " + replacedBaseOffsets
                        + " is not a contiguous run of rolled " + "segments of " + segments.keySet());
            }
            replaced.add(segment);
            expected = segments.higherKey(base);
        }
        long runStart = replacedBaseOffsets.get(0);
        long runEnd = expected;
        long previous = Long.MIN_VALUE;
        for (LogSegment segment : cleaned) {
            if (segment.baseOffset() < runStart
                    || segment.baseOffset() >= runEnd
                    || segment.baseOffset() <= previous
                    || !segment.logFile().getFileName().toString().endsWith(SegmentFiles.CLEANED_SUFFIX)) {
                throw new IllegalArgumentException(name + ": cleaned segment " + segment + " is not a .cleaned segment "
                        + "ascending within [" + runStart + ", " + runEnd + ")");
            }
            previous = segment.baseOffset();
        }
        if (cleaned.get(0).baseOffset() != runStart) {
            throw new IllegalArgumentException(name + ": the first cleaned segment must start at " + runStart);
        }
        return replaced;
    }

    /** Closes every segment, retired ones included (their files are deleted at the next start-up). */
    void closeAll() throws IOException {
        IOException failure = null;
        List<LogSegment> all = new ArrayList<>(segments.values());
        retired.forEach(next -> all.add(next.segment()));
        for (LogSegment segment : all) {
            try {
                segment.close();
            } catch (IOException e) {
                failure = failure == null ? e : failure;
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
