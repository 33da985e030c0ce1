package io.varve.broker.replica.fetcher;

import io.varve.broker.replica.Partition;

/**
 * KIP-405's follower path, what a fetcher does when its leader answers OFFSET_MOVED_TO_TIERED_STORAGE: rebuild the
 * partition's state from the remote tier and start its local log at (or just past) the leader's local log start.
 * Implemented by the tiered layer; called on the fetcher's thread (it may do remote I/O).
 */
public interface TieredFollowerStart {
    /** Nothing tiered on this broker: the partition waits and fetches again. */
    TieredFollowerStart NONE = (partition, leaderEpoch, leaderLocalLogStartOffset) -> false;

    /** True when the partition now starts where the remote tier ends; false to fetch again after the back-off. */
    boolean startFromRemote(Partition partition, int leaderEpoch, long leaderLocalLogStartOffset);
}
