package io.varve.raft.core;

import java.util.List;

/**
 * A leader that gave up its epoch (graceful shutdown, failed check-quorum, or a restart of the leader):
 * it serves no fetches, waits for a successor and, if none shows up in an election timeout, runs a
 * pre-vote itself.
 */
final class ResignedState implements EpochState {
    private final int epoch;
    final List<Integer> preferredSuccessors;
    long electionDeadlineMs;

    ResignedState(int epoch, List<Integer> preferredSuccessors, long electionDeadlineMs) {
        this.epoch = epoch;
        this.preferredSuccessors = List.copyOf(preferredSuccessors);
        this.electionDeadlineMs = electionDeadlineMs;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public Role role() {
        return Role.RESIGNED;
    }
}
