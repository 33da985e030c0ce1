package io.varve.raft.legacy;

import java.io.IOException;
import java.util.List;

/**
 * The replicated log as the Raft core sees it: dense offsets from 0, whole batches, one epoch per
 * batch, epochs never decreasing. Implementations are used from the raft thread only.
 *
 * <p>This is the storage seam: tests of the (future) multi-voter protocol can plug in an in-memory
 * log; the node uses {@link FileRaftLog}.
 */
public interface RaftLog extends AutoCloseable {

    /** The offset the next appended entry receives. */
    long endOffset();

    /** Entries below this offset survived the last {@link #flush()} (or recovery). */
    long flushedEndOffset();

    /** The epoch of the last batch, or 0 for an empty log. */
    int lastEpoch();

    /**
     * Appends entries as one batch at {@link #endOffset()} in the given epoch (not yet durable).
     *
     * @throws IllegalArgumentException if the epoch is below {@link #lastEpoch()}
     */
    LogBatch append(int epoch, List<byte[]> payloads) throws IOException;

    /** Makes every appended batch durable. */
    void flush() throws IOException;

    /**
     * Reads whole batches in offset order, starting with the batch that contains {@code fromOffset}
     * and stopping before {@code toOffsetExclusive}, and after at most about {@code maxRecords}
     * entries (at least one batch is returned when any is available).
     */
    List<LogBatch> read(long fromOffset, long toOffsetExclusive, int maxRecords) throws IOException;

    /** Removes every batch at or after {@code offset}, which must be a batch boundary. */
    void truncateTo(long offset) throws IOException;

    @Override
    void close() throws IOException;
}
