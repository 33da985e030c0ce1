package io.varve.raft.core;

/**
 * No leader known in this epoch. A voter starts a pre-vote when {@code electionDeadlineMs} passes; an
 * observer never does and instead asks a random voter for the leader when {@code discoveryDeadlineMs}
 * passes. Both are kept: the voter set can change while the replica waits.
 */
final class UnattachedState implements EpochState {
    private final int epoch;
    long electionDeadlineMs;
    long discoveryDeadlineMs;

    UnattachedState(int epoch, long electionDeadlineMs, long discoveryDeadlineMs) {
        this.epoch = epoch;
        this.electionDeadlineMs = electionDeadlineMs;
        this.discoveryDeadlineMs = discoveryDeadlineMs;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public Role role() {
        return Role.UNATTACHED;
    }
}
