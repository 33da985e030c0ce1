package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.epoch.LeaderEpochCache;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.producer.ProducerSnapshot;
import io.varve.storage.producer.ProducerSnapshotFiles;
import io.varve.storage.producer.ProducerStateManager;
import io.varve.storage.segment.BatchHeaderScanner;
import io.varve.storage.segment.LogSegment;
import io.varve.storage.segment.ScanResult;
import io.varve.storage.segment.SegmentFiles;
import io.varve.storage.segment.SegmentSwap;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory's segments and brings them to a consistent state.
 * <ul>
 *   <li>Always: a committed segment swap is completed; temp files, {@code .deleted} and uncommitted
 *       {@code .cleaned} files and orphan indexes are removed; indexes that fail a sanity check of the
 *       index files are rebuilt (a rolled segment that is then found invalid fails loudly).</li>
 *   <li>After a clean shutdown nothing is read from the segments: the newest producer snapshot records
 *       the log end offset and the active segment's size, and when the size still matches, it is the log
 *       end and the producer state as is. Otherwise the active segment's tail is scanned.</li>
 *   <li>After an unclean stop, the segments from the one holding the recovery point on are CRC-checked and
 *       re-indexed; the last one is truncated after its last valid batch (torn write), a rolled one that
 *       is invalid fails loudly (it was fsynced when rolled, so it is damage). Producer state comes from
 *       the newest snapshot at or below the recovered end plus a replay of the batch headers after it.</li>
 * </ul>
 */
final class LogLoader {

    private static final Logger log = LoggerFactory.getLogger(LogLoader.class);

    /**
     * What the log dir knows about a log before it is opened.
     *
     * @param recoveryPoint  checkpointed recovery point, or -1 when the checkpoint has none
     * @param logStartOffset checkpointed log start offset, or -1 when the checkpoint has none
     * @param highWatermark  checkpointed high watermark ({@code replication-offset-checkpoint}), or -1 when the
     *                       checkpoint has none
     * @param nowMs          load time: the segment.ms clock of a non-empty active segment starts here
     */
    record LoadParams(
            boolean hadCleanShutdown, long recoveryPoint, long logStartOffset, long highWatermark, long nowMs) {
        static LoadParams newLog(long nowMs) {
            return new LoadParams(true, -1, -1, -1, nowMs);
        }
    }

    /**
     * What loading produced; the caller owns the open segments. {@code checkpointedLogStartOffset} is the
     * checkpoint's value as read (-1 when none): below the first local segment it may be a tiered log's start
     * offset in remote storage, which the remote log manager confirms ({@link PartitionLog#restoreLogStartOffsetFromRemote}).
     */
    record LoadedLog(
            ConcurrentSkipListMap<Long, LogSegment> segments,
            long logEndOffset,
            long logStartOffset,
            ProducerStateManager producerState,
            ProducerSnapshot newestSnapshot,
            long checkpointedLogStartOffset) {}

    private final Path dir;
    private final String name;
    private final LogConfig config;
    private final LoadParams params;
    private final ConcurrentSkipListMap<Long, LogSegment> segments = new ConcurrentSkipListMap<>();
    /** Snapshot files not yet read or deleted, and the newest one read so far. */
    private final NavigableMap<Long, Path> snapshotFiles = new TreeMap<>();

    private ProducerSnapshot newestSnapshot;
    /** False for a brand-new log, whose files the log's first flush makes durable. */
    private boolean durableCreation = true;

    private LogLoader(Path dir, String name, LogConfig config, LoadParams params) {
        this.dir = dir;
        this.name = name;
        this.config = config;
        this.params = params;
    }

    static LoadedLog load(Path dir, String name, LogConfig config, LoadParams params) throws IOException {
        return load(dir, name, config, params, true);
    }

    /** {@link #load} where a new log's first segment is created without an fsync of its directory unless {@code durable}. */
    static LoadedLog load(Path dir, String name, LogConfig config, LoadParams params, boolean durable)
            throws IOException {
        LogLoader loader = new LogLoader(dir, name, config, params);
        loader.durableCreation = durable;
        return loader.load();
    }

    private LoadedLog load() throws IOException {
        long startNanos = System.nanoTime();
        if (SegmentSwap.completePendingSwap(dir)) {
            log.info("{}: completed a segment swap interrupted by a crash", name);
        }
        TreeSet<Long> baseOffsets = cleanDirectoryAndListSegments();
        try {
            if (baseOffsets.isEmpty()) {
                segments.put(0L, LogSegment.create(dir, 0L));
                if (durableCreation) {
                    DurableFiles.fsyncDirectory(dir);
                }
            }
            for (long baseOffset : baseOffsets) {
                segments.put(baseOffset, LogSegment.open(dir, baseOffset));
            }
            long logEndOffset = params.hadCleanShutdown() ? loadAfterCleanShutdown() : recoverAfterUncleanStop();
            ProducerStateManager producerState = loadProducerState(logEndOffset);
            long logStartOffset = Math.min(Math.max(segments.firstKey(), params.logStartOffset()), logEndOffset);
            LogSegment active = segments.lastEntry().getValue();
            if (!active.isEmpty()) {
                active.startRollClock(params.nowMs());
            }
            // A clean load is routine (LogManager logs one line for all of them); a recovery is worth a line per log.
            if (!params.hadCleanShutdown() || log.isDebugEnabled()) {
                String line =
                        "{}: loaded {} segments, log start offset {}, log end offset {}, {} producers, clean shutdown {}, in {} ms";
                Object[] args = {
                    name,
                    segments.size(),
                    logStartOffset,
                    logEndOffset,
                    producerState.producerCount(),
                    params.hadCleanShutdown(),
                    (System.nanoTime() - startNanos) / 1_000_000
                };
                if (params.hadCleanShutdown()) {
                    log.debug(line, args);
                } else {
                    log.info(line, args);
                }
            }
            return new LoadedLog(
                    segments, logEndOffset, logStartOffset, producerState, newestSnapshot, params.logStartOffset());
        } catch (IOException | RuntimeException e) {
            closeQuietly(e);
            throw e;
        }
    }

    /**
     * The leader-epoch lineage of a loaded log: the checkpoint, less the epochs starting at or past the log end (a
     * truncation or a recovery cut them off). After a crash, epochs are fsynced only with the log, so those starting
     * past the recovery point may be missing from the checkpoint; every batch carries its leader epoch, so the
     * recovered tail tells them again.
     */
    static LeaderEpochCache loadLeaderEpochs(Path dir, String name, LoadedLog loaded, LoadParams params)
            throws IOException {
        LeaderEpochCache epochCache = LeaderEpochCache.load(name, new LeaderEpochCheckpointFile(dir));
        epochCache.truncateFromEnd(loaded.logEndOffset());
        if (params.hadCleanShutdown()) {
            return epochCache;
        }
        long from = Math.max(params.recoveryPoint(), 0L);
        Long first = loaded.segments().floorKey(from);
        for (LogSegment segment : loaded.segments()
                .tailMap(first == null ? loaded.segments().firstKey() : first, true)
                .values()) {
            BatchHeaderScanner scanner = segment.scanner(0, false);
            for (BatchHeader header = scanner.next(); header != null; header = scanner.next()) {
                if (header.lastOffset() >= from) {
                    epochCache.assign(header.partitionLeaderEpoch(), header.baseOffset());
                }
            }
        }
        epochCache.flush();
        return epochCache;
    }

    /** Deletes leftover files; returns the base offsets of the live log files. */
    private TreeSet<Long> cleanDirectoryAndListSegments() throws IOException {
        TreeSet<Long> logBaseOffsets = new TreeSet<>();
        List<Path> indexFiles = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String fileName = file.getFileName().toString();
                OptionalLong logBase = SegmentFiles.parseBaseOffset(fileName, SegmentFiles.LOG_SUFFIX);
                if (fileName.endsWith(DurableFiles.TEMP_SUFFIX)
                        || fileName.endsWith(SegmentFiles.DELETED_SUFFIX)
                        || fileName.endsWith(SegmentFiles.CLEANED_SUFFIX)) {
                    Files.delete(file);
                    log.info("{}: deleted leftover file {}", name, fileName);
                } else if (logBase.isPresent()) {
                    logBaseOffsets.add(logBase.getAsLong());
                } else if (indexBaseOffset(fileName).isPresent()) {
                    indexFiles.add(file);
                } else {
                    // Producer snapshots are taken from this listing too: one directory pass per log at start-up.
                    OptionalLong snapshotOffset = SegmentFiles.parseBaseOffset(fileName, SegmentFiles.SNAPSHOT_SUFFIX);
                    if (snapshotOffset.isPresent()) {
                        snapshotFiles.put(snapshotOffset.getAsLong(), file);
                    }
                }
            }
        }
        for (Path indexFile : indexFiles) {
            if (!logBaseOffsets.contains(
                    indexBaseOffset(indexFile.getFileName().toString()).getAsLong())) {
                Files.delete(indexFile);
                log.info("{}: deleted orphan index {}", name, indexFile.getFileName());
            }
        }
        return logBaseOffsets;
    }

    private static OptionalLong indexBaseOffset(String fileName) {
        for (String suffix :
                new String[] {SegmentFiles.INDEX_SUFFIX, SegmentFiles.TIME_INDEX_SUFFIX, SegmentFiles.TXN_INDEX_SUFFIX
                }) {
            OptionalLong baseOffset = SegmentFiles.parseBaseOffset(fileName, suffix);
            if (baseOffset.isPresent()) {
                return baseOffset;
            }
        }
        return OptionalLong.empty();
    }

    /** Returns the log end offset; reads no segment data when the newest snapshot matches the active segment. */
    private long loadAfterCleanShutdown() throws IOException {
        LogSegment active = segments.lastEntry().getValue();
        for (LogSegment segment : segments.headMap(active.baseOffset()).values()) {
            ensureRolledSegmentIndexed(segment);
        }
        ProducerSnapshot snapshot = newestValidSnapshotAtOrBelow(Long.MAX_VALUE);
        if (snapshot != null
                && snapshot.segmentBaseOffset() == active.baseOffset()
                && snapshot.segmentSizeBytes() == active.sizeBytes()
                && active.indexLooksConsistent()) {
            return snapshot.offset();
        }
        if (active.indexLooksConsistent()) {
            ScanResult tail = active.scanTail();
            if (tail.reachedEnd()) {
                return tail.nextOffset();
            }
            log.warn(
                    "{}: active segment {} ends in an invalid batch after a clean shutdown ({}); recovering it",
                    name,
                    active.logFile().getFileName(),
                    tail.stopReason());
        }
        return recoverLastSegment(active);
    }

    /** CRC-checks and re-indexes the segments from the one holding the recovery point; returns the log end. */
    private long recoverAfterUncleanStop() throws IOException {
        Long floor = segments.floorKey(Math.max(params.recoveryPoint(), 0L));
        long firstToRecover = floor == null ? segments.firstKey() : floor;
        for (LogSegment segment : segments.headMap(firstToRecover).values()) {
            ensureRolledSegmentIndexed(segment);
        }
        LogSegment active = segments.lastEntry().getValue();
        for (LogSegment segment : segments.tailMap(firstToRecover, true).values()) {
            if (segment == active) {
                break;
            }
            ScanResult scan =
                    segment.rebuildIndex(config.indexIntervalBytes(), config.maxIndexSizeBytes(), true, false);
            requireWholeAndBelowNext(segment, scan);
            log.info(
                    "{}: recovered rolled segment {} past the recovery point {}",
                    name,
                    segment.logFile().getFileName(),
                    params.recoveryPoint());
        }
        return recoverLastSegment(active);
    }

    private long recoverLastSegment(LogSegment active) throws IOException {
        int sizeBeforeBytes = (int) Files.size(active.logFile());
        ScanResult recovered = active.rebuildIndex(config.indexIntervalBytes(), config.maxIndexSizeBytes(), true, true);
        int truncatedBytes = sizeBeforeBytes - recovered.validBytes();
        if (truncatedBytes > 0) {
            log.warn(
                    "{}: recovery truncated {} bytes from active segment {} at position {} ({})",
                    name,
                    truncatedBytes,
                    active.logFile().getFileName(),
                    recovered.validBytes(),
                    recovered.stopReason());
        } else {
            log.info(
                    "{}: recovered active segment {}, {} bytes all valid",
                    name,
                    active.logFile().getFileName(),
                    recovered.validBytes());
        }
        return recovered.nextOffset();
    }

    /** A rolled segment is trusted when its index files look sane; otherwise re-indexed and fully checked. */
    private void ensureRolledSegmentIndexed(LogSegment segment) throws IOException {
        if (segment.indexLooksConsistent()) {
            return;
        }
        ScanResult scan = segment.rebuildIndex(config.indexIntervalBytes(), config.maxIndexSizeBytes(), true, false);
        requireWholeAndBelowNext(segment, scan);
        log.info(
                "{}: rebuilt the indexes of segment {}", name, segment.logFile().getFileName());
    }

    private void requireWholeAndBelowNext(LogSegment segment, ScanResult scan) {
        if (!scan.reachedEnd()) {
            throw new KafkaStorageException(name + ": rolled segment " + segment.logFile() + " is corrupt at position "
                    + scan.validBytes() + " (" + scan.stopReason()
                    + "); it was fsynced when rolled, so this is disk damage. "
                    + "The log is not served; restore it from a replica or backup");
        }
        Long next = segments.higherKey(segment.baseOffset());
        if (next != null && scan.nextOffset() > next) {
            throw new KafkaStorageException(name + ": rolled segment " + segment.logFile() + " holds offsets up to "
                    + (scan.nextOffset() - 1) + ", overlapping the next segment at " + next);
        }
    }

    /**
     * The newest readable snapshot in [first segment's base offset, {@code maxOffset}]; unreadable ones,
     * older ones and (when called with the log end offset) ones past the end are deleted. Remembers the
     * newest kept.
     */
    private ProducerSnapshot newestValidSnapshotAtOrBelow(long maxOffset) throws IOException {
        if (newestSnapshot != null) {
            if (newestSnapshot.offset() <= maxOffset) {
                return newestSnapshot;
            }
            Files.deleteIfExists(ProducerSnapshotFiles.path(dir, newestSnapshot.offset()));
            log.info(
                    "{}: deleted producer snapshot at {} past the log end offset {}",
                    name,
                    newestSnapshot.offset(),
                    maxOffset);
            newestSnapshot = null;
        }
        while (!snapshotFiles.isEmpty()) {
            Map.Entry<Long, Path> newest = snapshotFiles.pollLastEntry();
            if (newest.getKey() > maxOffset || newest.getKey() < segments.firstKey()) {
                // past the end it describes truncated batches; before the first segment, the batches between it
                // and the first segment are gone, so replaying from it would miss them
                Files.delete(newest.getValue());
                log.info(
                        "{}: deleted producer snapshot {} outside the log [{}, {}]",
                        name,
                        newest.getValue().getFileName(),
                        segments.firstKey(),
                        maxOffset);
                continue;
            }
            try {
                // Only content proven bad is deleted: an I/O error (no descriptor, EIO) propagates and fails the load.
                newestSnapshot = ProducerSnapshotFiles.read(newest.getValue());
                if (newestSnapshot.offset() != newest.getKey()) {
                    throw new ProducerSnapshotFiles.InvalidSnapshotException(
                            "it holds offset " + newestSnapshot.offset(), null);
                }
                return newestSnapshot;
            } catch (ProducerSnapshotFiles.InvalidSnapshotException e) {
                newestSnapshot = null;
                log.warn(
                        "{}: deleting unreadable producer snapshot {}: {}",
                        name,
                        newest.getValue().getFileName(),
                        e.getMessage());
                Files.delete(newest.getValue());
            }
        }
        return null;
    }

    /**
     * Restores the newest snapshot at or below the log end offset and replays the batch headers after it
     * (transaction markers included). The transaction indexes are trusted below what is known durable (the
     * whole log after a clean shutdown; else the recovery point or the snapshot, fsynced after everything
     * before it); their entries from there on are dropped and rebuilt from the replayed ABORT markers.
     */
    private ProducerStateManager loadProducerState(long logEndOffset) throws IOException {
        ProducerStateManager producerState = new ProducerStateManager();
        ProducerSnapshot snapshot = newestValidSnapshotAtOrBelow(logEndOffset);
        long from = segments.firstKey();
        if (snapshot != null) {
            producerState.restore(snapshot.producers());
            from = snapshot.offset();
        }
        long txnIndexRebuildFrom = params.hadCleanShutdown()
                ? logEndOffset
                : Math.min(logEndOffset, Math.max(from, params.recoveryPoint()));
        Long rebuildBase = segments.floorKey(txnIndexRebuildFrom);
        for (LogSegment segment : segments.tailMap(rebuildBase == null ? segments.firstKey() : rebuildBase, true)
                .values()) {
            segment.txnIndex().truncateFrom(txnIndexRebuildFrom);
        }
        if (from < logEndOffset) {
            ProducerStateReplay.replay(name, segments, producerState, from, Long.MAX_VALUE, txnIndexRebuildFrom);
        }
        return producerState;
    }

    private void closeQuietly(Exception cause) {
        for (LogSegment segment : segments.values()) {
            try {
                segment.close();
            } catch (IOException e) {
                cause.addSuppressed(e);
            }
        }
    }
}
