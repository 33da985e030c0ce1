package io.varve.raft.core;

import io.varve.raft.core.message.RaftMessage;

/** The state of one role in one epoch. Each role is its own class; {@link QuorumState} switches them. */
public sealed interface EpochState
        permits UnattachedState, ProspectiveState, CandidateState, LeaderState, FollowerState, ResignedState {

    int epoch();

    Role role();

    /** The leader of this epoch as this replica knows it, or {@link RaftMessage#NO_ID}. */
    default int leaderId() {
        return RaftMessage.NO_ID;
    }
}
