package io.varve.raft.core.message;

/**
 * A response. Every response tells the responder's view of the leader ({@code leaderId},
 * {@code leaderEpoch}), which is how replicas learn of new epochs (KIP-595).
 */
public sealed interface RaftResponse extends RaftMessage
        permits VoteResponse,
                BeginQuorumEpochResponse,
                EndQuorumEpochResponse,
                FetchResponse,
                FetchSnapshotResponse,
                DescribeQuorumResponse,
                AddVoterResponse,
                RemoveVoterResponse,
                UpdateVoterResponse {

    RaftError error();

    int leaderId();

    int leaderEpoch();
}
