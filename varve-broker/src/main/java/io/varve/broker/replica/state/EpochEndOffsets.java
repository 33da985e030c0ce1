package io.varve.broker.replica.state;

import io.varve.storage.epoch.EpochEndOffset;

/** The diverging-epoch check of a follower's fetch (KIP-320), on the leader's answer for the follower's epoch. Pure. */
public final class EpochEndOffsets {
    private EpochEndOffsets() {}

    /**
     * For a follower that fetches from {@code fetchOffset} and says the last batch it holds has {@code
     * lastFetchedEpoch}, given where the leader's log ends that epoch ({@code leaderEnd}): the epoch and end offset the
     * follower must truncate to when its history diverges from the leader's, or null when it does not.
     */
    public static EpochEndOffset divergence(EpochEndOffset leaderEnd, int lastFetchedEpoch, long fetchOffset) {
        if (lastFetchedEpoch < 0) {
            return null;
        }
        if (leaderEnd.leaderEpoch() != lastFetchedEpoch || leaderEnd.endOffset() < fetchOffset) {
            return leaderEnd;
        }
        return null;
    }
}
