package io.varve.raft;

/** An append reached a node that is not the leader of the current epoch. */
public final class NotLeaderException extends RaftException {

    private static final long serialVersionUID = 1L;

    private final int leaderId;
    private final int epoch;

    public NotLeaderException(int leaderId, int epoch) {
        super("Not the leader: current leader is " + (leaderId < 0 ? "unknown" : leaderId) + " in epoch " + epoch);
        this.leaderId = leaderId;
        this.epoch = epoch;
    }

    /** The leader known to this node, or -1. */
    public int leaderId() {
        return leaderId;
    }

    public int epoch() {
        return epoch;
    }
}
