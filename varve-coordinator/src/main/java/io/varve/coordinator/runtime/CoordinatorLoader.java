package io.varve.coordinator.runtime;

import java.util.concurrent.CompletableFuture;

/**
 * Builds a shard from its partition's log (replaying every record up to the log end), on the shard's thread. Throws
 * when the partition cannot be read now; the runtime tries again later while it still leads the partition.
 */
@FunctionalInterface
public interface CoordinatorLoader<S extends CoordinatorShard> {
    /**
     * A loaded shard and when every record it replayed is committed: a new leader's log may end above its high
     * watermark, and until that tail commits no answer may show state from it.
     */
    record Loaded<S>(S shard, CompletableFuture<?> replayedCommitted) {
        /** A shard whose replayed records were all committed already. */
        public static <S> Loaded<S> committed(S shard) {
            return new Loaded<>(shard, CompletableFuture.completedFuture(null));
        }
    }

    Loaded<S> load(int partition, int leaderEpoch);
}
