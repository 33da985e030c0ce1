package io.varve.raft.core.message;

/**
 * Kafka's FetchRequest for {@code __cluster_metadata-0} as a follower or observer sends it:
 * {@code replicaId} (Kafka's ReplicaState.ReplicaId), {@code currentLeaderEpoch}, {@code fetchOffset}
 * (the fetcher's log end offset), {@code lastFetchedEpoch} (the epoch of the entry before it) and the
 * long-poll wait {@code maxWaitMs}. {@code maxEntries} stands for Kafka's byte limits.
 */
public record FetchRequest(
        String clusterId,
        int replicaId,
        int currentLeaderEpoch,
        long fetchOffset,
        int lastFetchedEpoch,
        int maxEntries,
        long maxWaitMs)
        implements RaftRequest {}
