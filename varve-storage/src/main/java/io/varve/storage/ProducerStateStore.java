package io.varve.storage;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.producer.ProducerSnapshot;
import io.varve.storage.producer.ProducerSnapshotFiles;
import io.varve.storage.producer.ProducerStateManager;
import io.varve.storage.records.TxnMarker;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A partition log's producer state together with its snapshot files: snapshots are taken at every roll
 * and at close (skipped when the newest one already describes the log's end), the newest
 * {@value #RETAINED_SNAPSHOTS} are kept (older ones also go with their segments) plus the one at the active
 * segment's base (recovery may cut the active segment short of every later snapshot and must still find one
 * inside the log: replaying from the first segment would lose transactions that began in deleted segments),
 * and idle producers expire; ABORT markers of an append are recorded in the segment's transaction index.
 * Guarded by the log's lock, but for the published first unstable offset.
 */
final class ProducerStateStore {

    static final int RETAINED_SNAPSHOTS = 3;
    private static final Logger log = LoggerFactory.getLogger(ProducerStateStore.class);

    private final Path dir;
    private final String name;
    private final ProducerStateManager state;
    /** The newest snapshot on disk, or null. */
    private ProducerSnapshot newestSnapshot;

    private boolean expiredSinceSnapshot;
    /** First offset of the oldest open transaction, or -1: published after each append, read without the lock. */
    private volatile long firstUnstableOffset;

    ProducerStateStore(Path dir, String name, ProducerStateManager loaded, ProducerSnapshot newestSnapshot) {
        this.dir = dir;
        this.name = name;
        this.state = loaded;
        this.newestSnapshot = newestSnapshot;
        this.firstUnstableOffset = loaded.firstUnstableOffset();
    }

    /** The first offset of the oldest open transaction, or -1 (what the last stable offset derives from). */
    long firstUnstableOffset() {
        return firstUnstableOffset;
    }

    /**
     * After an append's staged state was committed: records the aborts among {@code completed} in the transaction
     * index of {@code segment} (where their markers went) and publishes the first unstable offset.
     */
    void afterCommit(List<ProducerStateManager.CompletedTxn> completed, LogSegment segment) throws IOException {
        for (ProducerStateManager.CompletedTxn txn : completed) {
            if (txn.aborted()) {
                segment.txnIndex()
                        .append(new AbortedTxn(
                                txn.producerId(),
                                txn.firstOffset(),
                                txn.lastOffset(),
                                state.lastStableOffsetAfter(txn)));
            }
        }
        firstUnstableOffset = state.firstUnstableOffset();
    }

    ProducerStateManager state() {
        return state;
    }

    /**
     * A follower's append: applies one batch copied from the leader without validation (its leader validated it),
     * recording an abort in the transaction index of {@code segment}, where the marker went. Call
     * {@link #publishFirstUnstableOffset()} after the append.
     */
    void applyReplicated(BatchHeader header, TxnMarker marker, LogSegment segment) throws IOException {
        ProducerStateReplay.apply(state, header, marker, segment.txnIndex());
    }

    void publishFirstUnstableOffset() {
        firstUnstableOffset = state.firstUnstableOffset();
    }

    /** Snapshots the state as of {@code logEndOffset}, ending in {@code active}; drops the oldest beyond the few kept. */
    void takeSnapshot(long logEndOffset, LogSegment active) throws IOException {
        takeSnapshot(logEndOffset, active, Long.MAX_VALUE, true);
    }

    /**
     * {@link #takeSnapshot(long, LogSegment)} that never drops a snapshot above {@code pruneUpToOffset}: a tiered
     * log keeps the snapshot at each segment's end until that segment is uploaded with it. Without {@code fsync} (a
     * roll) the caller makes the file durable later, before the recovery point passes it.
     */
    void takeSnapshot(long logEndOffset, LogSegment active, long pruneUpToOffset, boolean fsync) throws IOException {
        ProducerSnapshot snapshot =
                new ProducerSnapshot(logEndOffset, active.baseOffset(), active.sizeBytes(), state.snapshot());
        ProducerSnapshotFiles.write(dir, snapshot, fsync);
        newestSnapshot = snapshot;
        expiredSinceSnapshot = false;
        NavigableMap<Long, Path> all = ProducerSnapshotFiles.list(dir);
        int count = all.size();
        for (Map.Entry<Long, Path> oldest : all.entrySet()) {
            if (count <= RETAINED_SNAPSHOTS || oldest.getKey() > pruneUpToOffset) {
                break;
            }
            if (oldest.getKey() != active.baseOffset()) {
                Files.deleteIfExists(oldest.getValue());
                count--;
            }
        }
    }

    /** True when the newest snapshot is exactly the state at {@code logEndOffset} with {@code active} as it is. */
    boolean snapshotIsCurrent(long logEndOffset, LogSegment active) {
        ProducerSnapshot newest = newestSnapshot;
        return newest != null
                && !expiredSinceSnapshot
                && newest.offset() == logEndOffset
                && newest.segmentBaseOffset() == active.baseOffset()
                && newest.segmentSizeBytes() == active.sizeBytes();
    }

    /**
     * After a truncation to {@code logEndOffset}: deletes the snapshots past it (they describe batches that are
     * gone), restores the newest readable one at or below it that lies within the log, and replays the batches from
     * there to the end, so the state is exactly that of the batches kept. The transaction indexes were cut with the
     * segments, so nothing is indexed again.
     */
    void rebuildTo(NavigableMap<Long, LogSegment> segments, long logEndOffset) throws IOException {
        ProducerSnapshot restored = null;
        for (Map.Entry<Long, Path> file :
                ProducerSnapshotFiles.list(dir).descendingMap().entrySet()) {
            if (file.getKey() > logEndOffset) {
                Files.deleteIfExists(file.getValue());
            } else if (restored == null && file.getKey() >= segments.firstKey()) {
                try {
                    ProducerSnapshot read = ProducerSnapshotFiles.read(file.getValue());
                    if (read.offset() == file.getKey()) {
                        restored = read;
                        continue;
                    }
                } catch (ProducerSnapshotFiles.InvalidSnapshotException e) {
                    log.warn("{}: deleting unreadable producer snapshot {}: {}", name, file.getValue(), e.getMessage());
                }
                Files.deleteIfExists(file.getValue());
            }
        }
        state.restore(restored == null ? Map.of() : restored.producers());
        long from = restored == null ? segments.firstKey() : restored.offset();
        ProducerStateReplay.replay(name, segments, state, from, logEndOffset, Long.MAX_VALUE);
        newestSnapshot = restored;
        expiredSinceSnapshot = true; // the restored snapshot may not match the active segment: take a new one at close
        firstUnstableOffset = state.firstUnstableOffset();
    }

    /** The log starts afresh: no producer is known and every snapshot goes. */
    void clear() throws IOException {
        for (Path file : ProducerSnapshotFiles.list(dir).values()) {
            Files.deleteIfExists(file);
        }
        state.restore(Map.of());
        newestSnapshot = null;
        expiredSinceSnapshot = false;
        firstUnstableOffset = state.firstUnstableOffset();
    }

    /** Forgets producers idle for {@code expirationMs}; returns how many. */
    int expire(long nowMs, long expirationMs) {
        int removed = state.removeExpiredProducers(nowMs, expirationMs);
        if (removed > 0) {
            expiredSinceSnapshot = true;
            log.info("{}: expired {} producers idle for {} ms", name, removed, expirationMs);
        }
        return removed;
    }
}
