package io.varve.storage.epoch;

/**
 * The answer to "where does leader epoch N end in this log" (OffsetsForLeaderEpoch, and the diverging-epoch check
 * of a Fetch): the largest epoch at or below the one asked for and the offset where the next larger epoch starts,
 * or the log end offset when it is the latest.
 *
 * @param leaderEpoch the epoch found (may be lower than the one asked for), or {@link #UNDEFINED_EPOCH}
 * @param endOffset   the exclusive end offset of that epoch, or {@link #UNDEFINED_OFFSET}
 */
public record EpochEndOffset(int leaderEpoch, long endOffset) {

    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_OFFSET = -1L;
    public static final EpochEndOffset UNDEFINED = new EpochEndOffset(UNDEFINED_EPOCH, UNDEFINED_OFFSET);

    public boolean isUndefined() {
        return endOffset == UNDEFINED_OFFSET;
    }
}
