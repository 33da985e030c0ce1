package io.varve.broker.replica.state;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import java.util.List;

/**
 * Where a leader epoch ended in a log's epoch lineage (KIP-101): the answer to OffsetsForLeaderEpoch and the check
 * behind a diverging epoch in a Fetch response (KIP-320). Pure.
 */
public final class EpochEndOffsets {
    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_OFFSET = -1L;

    /** The largest epoch at most the requested one, and the offset its successor starts at (the end for the last). */
    public record EpochEnd(int epoch, long endOffset) {
        public static final EpochEnd UNDEFINED = new EpochEnd(UNDEFINED_EPOCH, UNDEFINED_OFFSET);
    }

    private EpochEndOffsets() {}

    /**
     * @param lineage        the log's epochs with their start offsets, both increasing
     * @param requestedEpoch the epoch asked about
     * @param logEndOffset   the log's end, where the latest epoch ends
     */
    public static EpochEnd endOf(List<EpochEntry> lineage, int requestedEpoch, long logEndOffset) {
        if (lineage.isEmpty() || requestedEpoch < lineage.get(0).epoch()) {
            return EpochEnd.UNDEFINED;
        }
        for (int i = lineage.size() - 1; i >= 0; i--) {
            EpochEntry entry = lineage.get(i);
            if (entry.epoch() <= requestedEpoch) {
                long end = i == lineage.size() - 1
                        ? logEndOffset
                        : lineage.get(i + 1).startOffset();
                return new EpochEnd(entry.epoch(), end);
            }
        }
        return EpochEnd.UNDEFINED;
    }

    /**
     * For a follower that fetches from {@code fetchOffset} and says the last batch it holds has {@code
     * lastFetchedEpoch}: the epoch and end offset it must truncate to when its history diverges from the leader's
     * lineage, or null when it does not.
     */
    public static EpochEnd divergence(
            List<EpochEntry> lineage, int lastFetchedEpoch, long fetchOffset, long logEndOffset) {
        if (lastFetchedEpoch < 0) {
            return null;
        }
        EpochEnd end = endOf(lineage, lastFetchedEpoch, logEndOffset);
        if (end.epoch() != lastFetchedEpoch || end.endOffset() < fetchOffset) {
            return end;
        }
        return null;
    }
}
