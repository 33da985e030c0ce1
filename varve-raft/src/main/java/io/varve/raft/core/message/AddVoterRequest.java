package io.varve.raft.core.message;

import java.util.Objects;

/**
 * Kafka's AddRaftVoterRequest (KIP-853): the voter to add, with its directory id and endpoints, as an admin sends
 * it to the leader ({@code kafka-metadata-quorum add-controller}).
 */
public record AddVoterRequest(String clusterId, VoterSet.Voter voter) implements RaftRequest {
    public AddVoterRequest {
        Objects.requireNonNull(voter, "voter");
    }

    /** A voter known by id only. */
    public AddVoterRequest(String clusterId, int voterId) {
        this(clusterId, VoterSet.Voter.of(voterId));
    }

    public int voterId() {
        return voter.id();
    }
}
