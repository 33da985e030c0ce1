package io.varve.raft.core.message;

import java.util.Objects;
import java.util.UUID;

/**
 * Kafka's RemoveRaftVoterRequest (KIP-853): the voter's id and directory id (the zero uuid matches any), as an admin
 * sends it to the leader ({@code kafka-metadata-quorum remove-controller}).
 */
public record RemoveVoterRequest(String clusterId, int voterId, UUID voterDirectoryId) implements RaftRequest {
    public RemoveVoterRequest {
        Objects.requireNonNull(voterDirectoryId, "voterDirectoryId");
    }

    public RemoveVoterRequest(String clusterId, int voterId) {
        this(clusterId, voterId, VoterSet.Voter.NO_DIRECTORY_ID);
    }
}
