package io.varve.raft.core;

import io.varve.raft.core.message.VoterSet;
import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the core needs to know, with Kafka's key names and defaults where Kafka has one:
 * {@code controller.quorum.election.timeout.ms} (1000), {@code controller.quorum.election.backoff.max.ms}
 * (1000), {@code controller.quorum.fetch.timeout.ms} (2000), {@code controller.quorum.request.timeout.ms}
 * (2000), {@code controller.quorum.retry.backoff.ms} (20). {@code fetchMaxWaitMs} is the long-poll wait of
 * a follower's fetch (Kafka's {@code fetch.max.wait.ms}, 500). {@code voters} are the bootstrap voters
 * ({@code controller.quorum.voters}): the voter set until the log or a snapshot holds another (KIP-853).
 */
public record RaftCoreConfig(
        int nodeId,
        String clusterId,
        Set<Integer> voters,
        int electionTimeoutMs,
        int electionBackoffMaxMs,
        int fetchTimeoutMs,
        int requestTimeoutMs,
        int retryBackoffMs,
        int fetchMaxWaitMs,
        int maxFetchEntries,
        int snapshotChunkBytes,
        int maxCommittedPerOutput) {

    public RaftCoreConfig {
        Objects.requireNonNull(clusterId, "clusterId");
        voters = Collections.unmodifiableSortedSet(new TreeSet<>(voters)); // iteration order fixed, see VoterSet
        require(nodeId >= 0, "nodeId must be >= 0");
        require(!voters.isEmpty(), "a quorum has at least one voter");
        require(voters.size() <= VoterSet.MAX_VOTERS, "at most " + VoterSet.MAX_VOTERS + " voters");
        for (int voter : voters) {
            require(voter >= 0, "voter ids must be >= 0");
        }
        require(electionTimeoutMs > 0, "electionTimeoutMs must be > 0");
        require(electionBackoffMaxMs > 0, "electionBackoffMaxMs must be > 0");
        require(fetchTimeoutMs > 0, "fetchTimeoutMs must be > 0");
        require(retryBackoffMs > 0, "retryBackoffMs must be > 0");
        require(fetchMaxWaitMs >= 0, "fetchMaxWaitMs must be >= 0");
        require(
                requestTimeoutMs > fetchMaxWaitMs,
                "requestTimeoutMs must exceed fetchMaxWaitMs, or every parked fetch times out");
        require(maxFetchEntries > 0, "maxFetchEntries must be > 0");
        require(snapshotChunkBytes > 0, "snapshotChunkBytes must be > 0");
        require(maxCommittedPerOutput > 0, "maxCommittedPerOutput must be > 0");
    }

    /** Kafka's defaults for a replica of the given quorum. */
    public static RaftCoreConfig defaults(int nodeId, String clusterId, Set<Integer> voters) {
        return new RaftCoreConfig(nodeId, clusterId, voters, 1000, 1000, 2000, 2000, 20, 500, 512, 64 * 1024, 1024);
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
