package io.varve.raft.core.message;

import java.util.Objects;
import java.util.UUID;

/**
 * Kafka's FetchRequest for {@code __cluster_metadata-0} as a follower or observer sends it:
 * {@code replicaId} (Kafka's ReplicaState.ReplicaId), {@code currentLeaderEpoch}, {@code fetchOffset}
 * (the fetcher's log end offset), {@code lastFetchedEpoch} (the epoch of the entry before it) and the
 * long-poll wait {@code maxWaitMs}. {@code maxEntries} stands for Kafka's byte limits. {@code replicaDirectoryId}
 * is the fetcher's directory id (KIP-853, Fetch v17; the zero uuid when not known): the leader tells observers apart
 * by it, and AddVoter adds the one that fetched.
 */
public record FetchRequest(
        String clusterId,
        int replicaId,
        int currentLeaderEpoch,
        long fetchOffset,
        int lastFetchedEpoch,
        int maxEntries,
        long maxWaitMs,
        UUID replicaDirectoryId)
        implements RaftRequest {

    public FetchRequest {
        Objects.requireNonNull(replicaDirectoryId, "replicaDirectoryId");
    }

    /** A fetch without a directory id. */
    public FetchRequest(
            String clusterId,
            int replicaId,
            int currentLeaderEpoch,
            long fetchOffset,
            int lastFetchedEpoch,
            int maxEntries,
            long maxWaitMs) {
        this(
                clusterId,
                replicaId,
                currentLeaderEpoch,
                fetchOffset,
                lastFetchedEpoch,
                maxEntries,
                maxWaitMs,
                VoterSet.Voter.NO_DIRECTORY_ID);
    }
}
