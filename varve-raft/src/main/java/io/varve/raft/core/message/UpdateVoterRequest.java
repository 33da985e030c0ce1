package io.varve.raft.core.message;

import java.util.Objects;

/**
 * Kafka's UpdateRaftVoterRequest (KIP-853): a voter tells the leader of {@code currentLeaderEpoch} its directory id
 * and endpoints, when the voter set holds others (it moved, or was added by id only). The kraft.version range the
 * voter supports travels on the wire; this core supports 0 to 1 and does not need it.
 */
public record UpdateVoterRequest(String clusterId, int currentLeaderEpoch, VoterSet.Voter voter)
        implements RaftRequest {
    public UpdateVoterRequest {
        Objects.requireNonNull(voter, "voter");
    }
}
