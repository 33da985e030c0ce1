package io.varve.raft.core.runtime;

import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.SnapshotId;
import java.util.List;
import java.util.Optional;

/**
 * The replicated log as the Raft core drives it: dense offsets from {@link #startOffset()} to
 * {@link #endOffset()}, one epoch per entry, epochs never decreasing. Entries below the start live only
 * in the latest snapshot. Appends are not durable until {@link #flush()}; a crash keeps exactly the
 * entries below {@link #flushedEndOffset()}. Called from one thread; failures are unchecked and fatal
 * to the core.
 */
public interface RaftLog {

    /** The first offset held; entries below it are in the snapshot {@code (startOffset, startEpoch)}. */
    long startOffset();

    /** The epoch of the entry just before {@link #startOffset()} (0 when the log starts at 0). */
    int startEpoch();

    /** The offset the next appended entry receives. */
    long endOffset();

    /** Entries below this offset survive a crash. */
    long flushedEndOffset();

    /** The epoch of the last entry, or {@link #startEpoch()} when the log holds none. */
    int lastEpoch();

    /**
     * Appends entries whose offsets continue from {@link #endOffset()} and whose epochs are at least
     * {@link #lastEpoch()} and never decrease.
     */
    void append(List<LogEntry> entries);

    /** Makes every appended entry durable. */
    void flush();

    /**
     * Entries from {@code fromOffset} (at least {@link #startOffset()}) in offset order, stopping before
     * {@code toOffsetExclusive} and after {@code maxEntries}.
     */
    List<LogEntry> read(long fromOffset, long toOffsetExclusive, int maxEntries);

    /** Removes every entry at or after {@code offset} ({@code startOffset <= offset <= endOffset}); durable when it returns. */
    void truncateTo(long offset);

    /**
     * The largest epoch held that is at most {@code epoch}, with the offset where it ends (the first offset
     * of the next larger epoch, or {@link #endOffset()}); empty when {@code epoch} is below
     * {@link #startEpoch()}, that is, when only a snapshot could answer. The snapshot boundary counts as
     * an entry of {@link #startEpoch()} ending at {@link #startOffset()}.
     */
    Optional<OffsetAndEpoch> endOffsetForEpoch(int epoch);

    /**
     * Drops the entries below {@code snapshot.endOffset()}, which the caller has saved in a snapshot;
     * the snapshot's epoch matches the entry at {@code endOffset - 1}. Durable when it returns.
     */
    void advanceStart(SnapshotId snapshot);

    /** Drops every entry and restarts the log empty at the snapshot's end. Durable when it returns. */
    void resetTo(SnapshotId snapshot);
}
