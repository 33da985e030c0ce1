package io.varve.raft.core;

/**
 * Pre-vote (KIP-996): the replica asks whether it could win before it bumps the epoch. It keeps the leader it
 * followed, if any ({@code retainedLeaderId}), and since when it doubts that leader ({@code doubtingSinceMs}, kept
 * across pre-vote rounds): a rejection naming that leader makes it ask again soon, and once it has doubted for an
 * election timeout, follow that leader again (see {@code RaftCore}).
 */
final class ProspectiveState implements EpochState {
    private final int epoch;
    final int retainedLeaderId;
    final long doubtingSinceMs;
    final Ballot ballot;
    long electionDeadlineMs;

    ProspectiveState(int epoch, int retainedLeaderId, long doubtingSinceMs, Ballot ballot, long electionDeadlineMs) {
        this.epoch = epoch;
        this.retainedLeaderId = retainedLeaderId;
        this.doubtingSinceMs = doubtingSinceMs;
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
