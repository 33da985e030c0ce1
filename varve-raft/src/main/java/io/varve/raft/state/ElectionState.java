package io.varve.raft.state;

/**
 * What a voter must remember across restarts: the highest epoch it has seen, whom it voted for in
 * that epoch, and the leader it knows of. {@code -1} means "none".
 */
public record ElectionState(int epoch, int votedId, int leaderId) {

    public static final int NONE = -1;

    public ElectionState {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
        }
        if (votedId < NONE || leaderId < NONE) {
            throw new IllegalArgumentException("ids must be >= -1: votedId=" + votedId + ", leaderId=" + leaderId);
        }
    }

    /** The state of a voter that never took part in an election. */
    public static ElectionState initial() {
        return new ElectionState(0, NONE, NONE);
    }
}
