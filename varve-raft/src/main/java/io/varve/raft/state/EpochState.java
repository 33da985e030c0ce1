package io.varve.raft.state;

/**
 * The role a node plays in one epoch. One implementation per role; a later issue adds
 * {@code FollowerState} and {@code VotedState} beside {@link UnattachedState}, {@link CandidateState}
 * and {@link LeaderState}.
 */
public interface EpochState {

    int epoch();

    /** The leader of this epoch as far as this node knows, or -1. */
    int leaderId();

    /** What is persisted while in this state. */
    ElectionState election();

    /** Short role name for logs. */
    String name();
}
