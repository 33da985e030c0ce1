package io.varve.raft.core;

/**
 * Following a known leader by fetching from it (voters and observers alike). When {@code fetchDeadlineMs}
 * passes without an answer from the leader, a voter starts a pre-vote and an observer forgets the
 * leader. {@code lastLeaderContactMs} is when the leader itself last answered (-1: only heard of it from
 * others, or from the election record after a restart); only real contact makes this replica refuse
 * pre-votes, or replicas that all merely heard of a dead leader would refuse each other forever.
 * {@code download} is set while a snapshot is being pulled.
 */
final class FollowerState implements EpochState {
    private final int epoch;
    private final int leaderId;
    private final long fetchTimeoutMs;
    long fetchDeadlineMs;
    long lastLeaderContactMs = -1;
    long nextFetchAtMs;
    SnapshotDownload download;
    /** When this voter may next tell the leader its endpoints (UpdateVoter), if the voter set lacks them. */
    long nextUpdateVoterAtMs;

    FollowerState(int epoch, int leaderId, long fetchTimeoutMs, long nowMs) {
        this.epoch = epoch;
        this.leaderId = leaderId;
        this.fetchTimeoutMs = fetchTimeoutMs;
        this.fetchDeadlineMs = nowMs + fetchTimeoutMs;
        this.nextFetchAtMs = nowMs;
    }

    /** The leader answered: it is alive, wait another fetch timeout before doubting it. */
    void leaderContact(long nowMs) {
        lastLeaderContactMs = nowMs;
        fetchDeadlineMs = nowMs + fetchTimeoutMs;
    }

    boolean heardFromLeaderWithin(long windowMs, long nowMs) {
        return lastLeaderContactMs >= 0 && nowMs - lastLeaderContactMs < windowMs;
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public int leaderId() {
        return leaderId;
    }

    @Override
    public Role role() {
        return Role.FOLLOWER;
    }
}
