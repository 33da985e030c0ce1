package io.varve.raft.core;

/**
 * Pre-vote (KIP-996): the replica asks whether it could win before it bumps the epoch. It keeps the
 * leader it followed, if any, so a rejection naming that leader sends it back to following.
 */
final class ProspectiveState implements EpochState {
    private final int epoch;
    final int retainedLeaderId;
    final Ballot ballot;
    long electionDeadlineMs;

    ProspectiveState(int epoch, int retainedLeaderId, Ballot ballot, long electionDeadlineMs) {
        this.epoch = epoch;
        this.retainedLeaderId = retainedLeaderId;
        this.ballot = ballot;
        this.electionDeadlineMs = electionDeadlineMs;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public Role role() {
        return Role.PROSPECTIVE;
    }
}
