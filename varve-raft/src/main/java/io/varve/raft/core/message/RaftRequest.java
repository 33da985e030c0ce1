package io.varve.raft.core.message;

/** A request. Every request but DescribeQuorum names the cluster, checked by the receiver. */
public sealed interface RaftRequest extends RaftMessage
        permits VoteRequest,
                BeginQuorumEpochRequest,
                EndQuorumEpochRequest,
                FetchRequest,
                FetchSnapshotRequest,
                DescribeQuorumRequest,
                AddVoterRequest,
                RemoveVoterRequest,
                UpdateVoterRequest {

    /** The cluster id the sender believes in, or null for requests without one (DescribeQuorum). */
    String clusterId();
}
