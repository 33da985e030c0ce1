package io.varve.coordinator.runtime;

/**
 * Builds a shard from its partition's log (replaying every record up to the log end), on the shard's thread. Throws
 * when the partition cannot be read now; the runtime tries again later while it still leads the partition.
 */
@FunctionalInterface
public interface CoordinatorLoader<S extends CoordinatorShard> {
    S load(int partition, int leaderEpoch);
}
