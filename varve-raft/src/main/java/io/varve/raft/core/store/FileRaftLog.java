package io.varve.raft.core.store;

import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.runtime.RaftLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core's {@link RaftLog} on disk: {@link LogSegment} files in one directory and a {@value
 * #START_FILE_NAME} file holding where the log starts (the end of the latest snapshot, with its epoch).
 *
 * <p>Durability: appends reach the page cache; {@link #flush()} fsyncs the last segment, and a segment is
 * fsynced whole before the next one is created, so only the last can hold a torn tail. {@link
 * #truncateTo}, {@link #advanceStart} and {@link #resetTo} are durable when they return. The start moves
 * first (an atomic replace of {@value #START_FILE_NAME}) and segments below it are deleted after; a crash
 * between the two leaves segments that the next open deletes. A reset (installing a snapshot) marks the
 * start file {@code resetPending=1} before it deletes the segments, so a crash half way cannot bring back
 * entries of the history the snapshot replaced.
 *
 * <p>Open: segments are scanned in order, every frame's CRC checked (see {@link LogSegment} for what is a
 * torn tail and what is corruption); offsets must be dense across segments and epochs never decrease, or
 * the open fails loudly. Everything recovered is fsynced, so {@link #flushedEndOffset()} starts at the end.
 *
 * <p>Threading: one thread at a time, as the core calls it. Memory: a sparse index per segment and the
 * first offset of each epoch.
 */
public final class FileRaftLog implements RaftLog, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FileRaftLog.class);
    public static final String START_FILE_NAME = "log-start";
    /** Kafka's {@code metadata.log.segment.bytes} is 1 GiB; the metadata log is small, so roll sooner. */
    public static final int DEFAULT_SEGMENT_BYTES = 64 * 1024 * 1024;

    private final Path dir;
    private final int segmentBytes;
    private final KeyValueFile startFile;
    private final NavigableMap<Long, LogSegment> segments = new TreeMap<>();
    /** The first offset at or above the log start of every epoch the log holds. */
    private final NavigableMap<Integer, Long> epochStarts = new TreeMap<>();

    private long startOffset;
    private int startEpoch;
    private long endOffset;
    private long flushedEndOffset;
    private boolean closed;

    private FileRaftLog(Path dir, int segmentBytes) {
        this.dir = dir;
        this.segmentBytes = segmentBytes;
        this.startFile = new KeyValueFile(
                dir.resolve(START_FILE_NAME), "Varve Raft log start; replaced atomically, do not edit", 1);
    }

    /** Opens (creating if needed) the log in {@code dir}, dropping a torn tail and refusing corruption. */
    public static FileRaftLog open(Path dir, int segmentBytes) {
        if (segmentBytes < 1024) {
            throw new IllegalArgumentException("segmentBytes must be >= 1024: " + segmentBytes);
        }
        StoreDirs.create(dir);
        FileRaftLog log = new FileRaftLog(dir, segmentBytes);
        try {
            log.recover();
        } catch (RuntimeException e) {
            log.close();
            throw e;
        }
        return log;
    }

    private void recover() {
        Optional<Map<String, Long>> start = startFile.read();
        startOffset = start.map(f -> startFile.require(f, "startOffset")).orElse(0L);
        startEpoch = Math.toIntExact(
                start.map(f -> startFile.require(f, "startEpoch")).orElse(0L));
        List<Long> bases = segmentBases();
        if (start.map(f -> startFile.require(f, "resetPending") != 0).orElse(false)) {
            LOG.warn(
                    "Finishing a snapshot install interrupted by a crash: deleting {} segments of {}",
                    bases.size(),
                    dir);
            deleteFiles(bases);
            bases = List.of();
            writeStart(false);
        }
        List<Long> below = new ArrayList<>();
        for (int i = 0; i + 1 < bases.size() && bases.get(i + 1) <= startOffset; i++) {
            below.add(bases.get(i)); // every entry of it lies below the start: a deletion a crash interrupted
        }
        deleteFiles(below);
        bases = bases.subList(below.size(), bases.size());
        endOffset = bases.isEmpty() ? startOffset : bases.get(0);
        if (endOffset > startOffset) {
            throw new CorruptStoreException(
                    "the log in " + dir + " starts at " + startOffset + " but its first segment at " + endOffset);
        }
        int[] lastEpoch = {startEpoch};
        for (int i = 0; i < bases.size(); i++) {
            long base = bases.get(i);
            if (base != endOffset) {
                throw new CorruptStoreException(
                        "segment " + base + " of " + dir + " does not follow offset " + endOffset);
            }
            LogSegment segment = LogSegment.open(dir, base, i == bases.size() - 1, entry -> {
                if (entry.offset() >= startOffset) {
                    if (entry.epoch() < lastEpoch[0]) {
                        throw new CorruptStoreException(
                                "entry " + entry + " in " + dir + " goes back from epoch " + lastEpoch[0]);
                    }
                    epochStarts.putIfAbsent(entry.epoch(), entry.offset());
                    lastEpoch[0] = entry.epoch();
                }
            });
            segments.put(base, segment);
            endOffset = segment.endOffset();
        }
        if (endOffset < startOffset) {
            // A crash after the start moved to the end and before the old segments went.
            deleteFiles(new ArrayList<>(segments.keySet()));
            endOffset = startOffset;
        }
        flushedEndOffset = endOffset;
        LOG.info(
                "Opened Raft log {}: offsets [{}, {}), last epoch {}, {} segments",
                dir,
                startOffset,
                endOffset,
                lastEpoch(),
                segments.size());
    }

    @Override
    public long startOffset() {
        return startOffset;
    }

    @Override
    public int startEpoch() {
        return startEpoch;
    }

    @Override
    public long endOffset() {
        return endOffset;
    }

    @Override
    public long flushedEndOffset() {
        return flushedEndOffset;
    }

    @Override
    public int lastEpoch() {
        return epochStarts.isEmpty() ? startEpoch : epochStarts.lastKey();
    }

    @Override
    public void append(List<LogEntry> entries) {
        ensureOpen();
        long offset = endOffset;
        int epoch = lastEpoch();
        for (LogEntry entry : entries) {
            if (entry.offset() != offset || entry.epoch() < epoch) {
                throw new IllegalArgumentException("append " + entry + " at end " + offset + ", last epoch " + epoch);
            }
            offset++;
            epoch = entry.epoch();
        }
        int from = 0;
        while (from < entries.size()) {
            LogSegment active = activeForAppend();
            int to = from;
            long bytes = active.sizeBytes();
            do {
                bytes += EntryFrame.sizeBytes(entries.get(to));
                to++;
            } while (to < entries.size() && bytes < segmentBytes);
            List<LogEntry> batch = entries.subList(from, to);
            active.append(batch);
            for (LogEntry entry : batch) {
                epochStarts.putIfAbsent(entry.epoch(), entry.offset());
            }
            endOffset = active.endOffset();
            from = to;
        }
    }

    /** The last segment, or a new one when it is full (the full one fsynced first) or there is none. */
    private LogSegment activeForAppend() {
        Map.Entry<Long, LogSegment> last = segments.lastEntry();
        if (last != null && last.getValue().sizeBytes() < segmentBytes) {
            return last.getValue();
        }
        if (last != null) {
            last.getValue().flush(); // only the last segment may hold unflushed entries
        }
        LogSegment created = LogSegment.create(dir, endOffset);
        segments.put(endOffset, created);
        return created;
    }

    @Override
    public void flush() {
        ensureOpen();
        if (!segments.isEmpty()) {
            segments.lastEntry().getValue().flush();
        }
        flushedEndOffset = endOffset;
    }

    @Override
    public List<LogEntry> read(long fromOffset, long toOffsetExclusive, int maxEntries) {
        ensureOpen();
        if (fromOffset < startOffset || fromOffset > endOffset) {
            throw new IllegalArgumentException(
                    "read from " + fromOffset + " outside [" + startOffset + ", " + endOffset + "]");
        }
        long to = Math.min(toOffsetExclusive, endOffset);
        List<LogEntry> out = new ArrayList<>();
        if (fromOffset >= to || maxEntries <= 0) {
            return out;
        }
        Long first = segments.floorKey(fromOffset);
        for (LogSegment segment : segments.tailMap(first, true).values()) {
            if (out.size() >= maxEntries || segment.baseOffset >= to) {
                break;
            }
            segment.read(Math.max(fromOffset, segment.baseOffset), to, maxEntries - out.size(), out);
        }
        return out;
    }

    @Override
    public void truncateTo(long offset) {
        ensureOpen();
        if (offset < startOffset || offset > endOffset) {
            throw new IllegalArgumentException(
                    "truncate to " + offset + " outside [" + startOffset + ", " + endOffset + "]");
        }
        if (offset == endOffset) {
            return;
        }
        List<Long> above = new ArrayList<>(segments.tailMap(offset, true).keySet());
        deleteFiles(above);
        if (!segments.isEmpty()) {
            segments.lastEntry().getValue().truncateTo(offset);
        }
        epochStarts.values().removeIf(first -> first >= offset);
        LOG.info("Truncated Raft log {} from {} to {}", dir, endOffset, offset);
        endOffset = offset;
        flushedEndOffset = Math.min(flushedEndOffset, offset);
    }

    @Override
    public Optional<OffsetAndEpoch> endOffsetForEpoch(int epoch) {
        if (epoch < startEpoch) {
            return Optional.empty();
        }
        Map.Entry<Integer, Long> held = epochStarts.floorEntry(epoch);
        if (held == null) {
            return Optional.of(new OffsetAndEpoch(startOffset, startEpoch));
        }
        Map.Entry<Integer, Long> next = epochStarts.higherEntry(held.getKey());
        return Optional.of(new OffsetAndEpoch(next == null ? endOffset : next.getValue(), held.getKey()));
    }

    @Override
    public void advanceStart(SnapshotId snapshot) {
        ensureOpen();
        long end = snapshot.endOffset();
        if (end <= startOffset || end > endOffset) {
            throw new IllegalArgumentException(
                    "snapshot " + snapshot + " outside (" + startOffset + ", " + endOffset + "]");
        }
        LogEntry last = read(end - 1, end, 1).get(0);
        if (last.epoch() != snapshot.epoch()) {
            throw new IllegalArgumentException("snapshot " + snapshot + " does not match " + last);
        }
        startOffset = end;
        startEpoch = snapshot.epoch();
        writeStart(false);
        List<Long> below = new ArrayList<>();
        for (Map.Entry<Long, LogSegment> entry : segments.entrySet()) {
            Long next = segments.higherKey(entry.getKey());
            if ((next != null && next <= end)
                    || (next == null && entry.getValue().endOffset() <= end)) {
                below.add(entry.getKey());
            }
        }
        deleteFiles(below);
        dropEpochsBelowStart();
        flushedEndOffset = Math.max(flushedEndOffset, startOffset);
    }

    @Override
    public void resetTo(SnapshotId snapshot) {
        ensureOpen();
        startOffset = snapshot.endOffset();
        startEpoch = snapshot.epoch();
        writeStart(true);
        deleteFiles(segmentBases());
        if (!segments.isEmpty()) {
            throw new IllegalStateException(
                    "segments " + segments.keySet() + " of " + dir + " vanished from its listing");
        }
        writeStart(false);
        epochStarts.clear();
        endOffset = startOffset;
        flushedEndOffset = startOffset;
        LOG.info("Reset Raft log {} to snapshot {}", dir, snapshot);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (LogSegment segment : segments.values()) {
            segment.close();
        }
    }

    /** The last segment's file and how many of its bytes are known durable: what a power cut keeps. */
    Optional<Map.Entry<Path, Long>> lastSegmentFlushedBytes() {
        return segments.isEmpty()
                ? Optional.empty()
                : Optional.of(Map.entry(
                        segments.lastEntry().getValue().file(),
                        segments.lastEntry().getValue().flushedSizeBytes()));
    }

    /** Forgets epochs whose entries all lie below the start; the one the start cuts through begins there. */
    private void dropEpochsBelowStart() {
        while (!epochStarts.isEmpty() && epochStarts.firstEntry().getValue() < startOffset) {
            Map.Entry<Integer, Long> first = epochStarts.pollFirstEntry();
            Map.Entry<Integer, Long> next = epochStarts.firstEntry();
            long firstEnd = next == null ? endOffset : next.getValue();
            if (firstEnd > startOffset) {
                epochStarts.put(first.getKey(), startOffset);
                return;
            }
        }
    }

    private void writeStart(boolean resetPending) {
        Map<String, Long> fields = new LinkedHashMap<>();
        fields.put("startOffset", startOffset);
        fields.put("startEpoch", (long) startEpoch);
        fields.put("resetPending", resetPending ? 1L : 0L);
        startFile.write(fields);
    }

    private List<Long> segmentBases() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(LogSegment::baseOffsetOf)
                    .filter(base -> base >= 0)
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("could not list " + dir, e);
        }
    }

    /** Deletes the segments with these base offsets (open or not), then fsyncs the directory once. */
    private void deleteFiles(List<Long> bases) {
        if (bases.isEmpty()) {
            return;
        }
        try {
            for (long base : bases) {
                LogSegment open = segments.remove(base);
                if (open != null) {
                    open.delete();
                } else {
                    Files.deleteIfExists(LogSegment.fileOf(dir, base));
                }
            }
            DurableIo.fsyncDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete segments of " + dir, e);
        }
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the Raft log in " + dir + " is closed");
        }
    }
}
