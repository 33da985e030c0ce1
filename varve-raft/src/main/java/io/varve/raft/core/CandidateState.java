package io.varve.raft.core;

/** A real election in a new epoch; the replica voted for itself (persisted before asking). */
final class CandidateState implements EpochState {
    private final int epoch;
    final Ballot ballot;
    long electionDeadlineMs;

    CandidateState(int epoch, Ballot ballot, long electionDeadlineMs) {
        this.epoch = epoch;
        this.ballot = ballot;
        this.electionDeadlineMs = electionDeadlineMs;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public Role role() {
        return Role.CANDIDATE;
    }
}
