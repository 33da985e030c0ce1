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
 *
 * <p>{@code kraftVersion} is Kafka's {@code kraft.version} feature: 0 for a static quorum (voters from configuration,
 * AddVoter, RemoveVoter and UpdateVoter refused with UNSUPPORTED_VERSION), 1 for a dynamic one (KIP-853: voter changes
 * through the log). A dynamic quorum may start with no known voters (a replica formatted without initial voters):
 * it then asks its {@code bootstrapServers} (Kafka's {@code controller.quorum.bootstrap.servers}, addressed as
 * {@link io.varve.raft.core.message.RaftMessage#bootstrapServerId(int)}) for the leader. {@code localVoter} is this
 * replica's own directory id and endpoints: what it announces with UpdateVoter when the voter set says otherwise.
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
        int maxCommittedPerOutput,
        int kraftVersion,
        int bootstrapServers,
        VoterSet.Voter localVoter) {

    public RaftCoreConfig {
        Objects.requireNonNull(clusterId, "clusterId");
        voters = Collections.unmodifiableSortedSet(new TreeSet<>(voters)); // iteration order fixed, see VoterSet
        require(nodeId >= 0, "nodeId must be >= 0");
        require(kraftVersion == 0 || kraftVersion == 1, "kraft.version is 0 or 1");
        require(!voters.isEmpty() || kraftVersion == 1, "a static quorum has at least one voter");
        require(bootstrapServers >= 0 && bootstrapServers <= MAX_BOOTSTRAP_SERVERS, "0 to 64 bootstrap servers");
        Objects.requireNonNull(localVoter, "localVoter");
        require(localVoter.id() == nodeId, "localVoter is this node");
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

    /** Most bootstrap servers a replica asks. */
    public static final int MAX_BOOTSTRAP_SERVERS = 64;

    /** Without the dynamic-quorum settings: {@code kraft.version} 1, voters from {@code voters}, no bootstrap servers. */
    public RaftCoreConfig(
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
        this(
                nodeId,
                clusterId,
                voters,
                electionTimeoutMs,
                electionBackoffMaxMs,
                fetchTimeoutMs,
                requestTimeoutMs,
                retryBackoffMs,
                fetchMaxWaitMs,
                maxFetchEntries,
                snapshotChunkBytes,
                maxCommittedPerOutput,
                1,
                0,
                VoterSet.Voter.of(nodeId));
    }

    /** This configuration with another kraft.version, bootstrap server count and local voter. */
    public RaftCoreConfig withQuorum(int kraftVersion, int bootstrapServers, VoterSet.Voter localVoter) {
        return new RaftCoreConfig(
                nodeId,
                clusterId,
                voters,
                electionTimeoutMs,
                electionBackoffMaxMs,
                fetchTimeoutMs,
                requestTimeoutMs,
                retryBackoffMs,
                fetchMaxWaitMs,
                maxFetchEntries,
                snapshotChunkBytes,
                maxCommittedPerOutput,
                kraftVersion,
                bootstrapServers,
                localVoter);
    }

    /** The voter set before the log or a snapshot names one: {@code voters}, or none known yet. */
    public VoterSet bootstrapVoterSet() {
        return voters.isEmpty() ? VoterSet.EMPTY : new VoterSet(voters);
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
