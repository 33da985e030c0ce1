package io.varve.raft.node;

import io.varve.raft.RaftException;

/**
 * A proposal was appended but will not commit as proposed: another leader's entry committed at its
 * offset (the epoch ended first and the entry was truncated), or the outcome is unknown because a
 * snapshot replaced the log before its offset committed here.
 */
public final class ProposalLostException extends RaftException {
    private static final long serialVersionUID = 1L;

    public ProposalLostException(String message) {
        super(message);
    }
}
