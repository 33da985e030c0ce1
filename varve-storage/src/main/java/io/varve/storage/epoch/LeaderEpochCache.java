package io.varve.storage.epoch;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Epoch → start offset entries, epochs and offsets both strictly increasing. Writers are serialised
 * by the log's append lock; readers see an immutable snapshot list.
 */
public final class LeaderEpochCache {

    public static final int NO_EPOCH = -1;
    private static final Logger log = LoggerFactory.getLogger(LeaderEpochCache.class);

    private final String name;
    private final LeaderEpochCheckpointFile checkpoint;
    private volatile List<EpochEntry> entries;
    /** True while the file holds entries not yet fsynced (an assignment since the last {@link #flush}). */
    private boolean unsynced;

    private LeaderEpochCache(String name, LeaderEpochCheckpointFile checkpoint, List<EpochEntry> entries) {
        this.name = name;
        this.checkpoint = checkpoint;
        this.entries = List.copyOf(entries);
        for (int i = 1; i < entries.size(); i++) {
            EpochEntry prev = entries.get(i - 1);
            EpochEntry next = entries.get(i);
            if (next.epoch() <= prev.epoch() || next.startOffset() < prev.startOffset()) {
                throw new IllegalStateException(
                        name + ": leader epoch entries out of order: " + prev + " then " + next);
            }
        }
    }

    /** Loads the entries from the checkpoint file (none when it does not exist yet). */
    public static LeaderEpochCache load(String name, LeaderEpochCheckpointFile checkpoint) {
        return new LeaderEpochCache(name, checkpoint, checkpoint.read());
    }

    public int latestEpoch() {
        List<EpochEntry> current = entries;
        return current.isEmpty() ? NO_EPOCH : current.get(current.size() - 1).epoch();
    }

    public List<EpochEntry> entries() {
        return entries;
    }

    /**
     * The epoch in which {@code offset} was written: the latest entry starting at or below it; {@link #NO_EPOCH}
     * when every entry starts above it (or none is cached). ListOffsets answers EARLIEST and EARLIEST_LOCAL with it.
     */
    public int epochForOffset(long offset) {
        List<EpochEntry> current = entries;
        int found = NO_EPOCH;
        for (EpochEntry entry : current) {
            if (entry.startOffset() > offset) {
                break;
            }
            found = entry.epoch();
        }
        return found;
    }

    /**
     * Where {@code requestedEpoch} ends, with KIP-101/KIP-279 semantics as Kafka answers them (its behaviour is
     * the reference, followers and consumers depend on it):
     * <ul>
     *   <li>the latest epoch ends at {@code logEndOffset} (it is still being written);</li>
     *   <li>an older epoch is answered with the largest cached epoch at or below it and the start offset of the
     *       first cached epoch above it (the log may never have held the requested epoch);</li>
     *   <li>an epoch below every cached one is answered with itself and the first cached epoch's start offset: its
     *       data may have been deleted, and the follower must replicate from there;</li>
     *   <li>{@link EpochEndOffset#UNDEFINED} for an undefined epoch (-1), an epoch above the latest, or an empty
     *       cache.</li>
     * </ul>
     */
    public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        List<EpochEntry> current = entries;
        if (requestedEpoch == NO_EPOCH || current.isEmpty()) {
            return EpochEndOffset.UNDEFINED;
        }
        EpochEntry latest = current.get(current.size() - 1);
        if (requestedEpoch == latest.epoch()) {
            return new EpochEndOffset(requestedEpoch, logEndOffset);
        }
        if (requestedEpoch > latest.epoch()) {
            return EpochEndOffset.UNDEFINED;
        }
        EpochEntry floor = null;
        for (EpochEntry entry : current) {
            if (entry.epoch() > requestedEpoch) {
                return floor == null
                        ? new EpochEndOffset(requestedEpoch, entry.startOffset())
                        : new EpochEndOffset(floor.epoch(), entry.startOffset());
            }
            floor = entry;
        }
        throw new IllegalStateException(name + ": no epoch above " + requestedEpoch + " below the latest " + latest);
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset} when it is newer than the latest epoch;
     * older or equal epochs change nothing. Writes the file before returning but does not fsync it (as Kafka since
     * KAFKA-15046): the log's next flush does, before its recovery point passes the new epoch, and recovery after a
     * crash rebuilds the epochs past the recovery point from the batches themselves.
     */
    public synchronized void assign(int epoch, long startOffset) {
        if (epoch < 0 || epoch <= latestEpoch()) {
            return;
        }
        List<EpochEntry> updated = new ArrayList<>(entries.size() + 1);
        for (EpochEntry entry : entries) {
            // an entry at or past the new start offset belongs to a lineage that was truncated away
            if (entry.startOffset() < startOffset) {
                updated.add(entry);
            }
        }
        updated.add(new EpochEntry(epoch, startOffset));
        boolean first = entries.isEmpty();
        persist(updated, false);
        if (first) {
            log.debug("{}: leader epoch {} starts at offset {}", name, epoch, startOffset); // every new log's first
        } else {
            log.info("{}: leader epoch {} starts at offset {}", name, epoch, startOffset);
        }
    }

    /** Drops every entry whose start offset is at or beyond {@code endOffset} (the log was truncated there). */
    public synchronized void truncateFromEnd(long endOffset) {
        List<EpochEntry> kept =
                entries.stream().filter(e -> e.startOffset() < endOffset).toList();
        if (kept.size() != entries.size()) {
            persist(kept, true);
            log.info("{}: dropped leader epochs starting at or after offset {}", name, endOffset);
        }
    }

    /** Drops every entry (the log starts afresh), durably. */
    public synchronized void clear() {
        if (!entries.isEmpty() || unsynced) {
            persist(List.of(), true);
            log.info("{}: dropped every leader epoch", name);
        }
    }

    private void persist(List<EpochEntry> updated, boolean durable) {
        checkpoint.write(updated, durable);
        entries = List.copyOf(updated);
        unsynced = !durable;
    }

    /** Makes the entries durable if an assignment was not yet; the log calls it before its recovery point moves. */
    public synchronized void flush() {
        if (unsynced) {
            persist(entries, true);
        }
    }
}
