package io.varve.raft.core;

/** The role of a replica in its current epoch; see {@link QuorumState} for the allowed transitions. */
public enum Role {
    UNATTACHED,
    PROSPECTIVE,
    CANDIDATE,
    LEADER,
    FOLLOWER,
    RESIGNED
}
