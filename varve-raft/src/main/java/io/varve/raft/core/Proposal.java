package io.varve.raft.core;

import io.varve.raft.core.message.RaftError;

/**
 * The answer to a proposal: appended at {@code baseOffset} in {@code epoch} (committed once the high
 * watermark passes it, lost if the epoch ends first), or refused with {@link RaftError#NOT_LEADER_OR_FOLLOWER}
 * and the leader this replica knows of.
 */
public record Proposal(RaftError error, int epoch, long baseOffset, int leaderId) {

    public boolean accepted() {
        return error == RaftError.NONE;
    }
}
