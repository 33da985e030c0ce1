package io.varve.coordinator.runtime;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Appends a shard's records to its partition as leader at {@code leaderEpoch}. Called on the shard's thread; the
 * append itself happens before the call returns (so writes keep their order), and the future completes, on any
 * thread, once the records are committed (below the high watermark). It fails when they cannot be: the broker no
 * longer leads the partition at that epoch (NOT_LEADER_OR_FOLLOWER), or the log refused them.
 */
@FunctionalInterface
public interface CoordinatorWriter {
    CompletableFuture<Long> append(int partition, int leaderEpoch, List<Outbox.Write> writes);
}
