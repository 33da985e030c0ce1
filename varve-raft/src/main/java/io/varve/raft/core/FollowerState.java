package io.varve.raft.core;

/**
 * Following a known leader by fetching from it (voters and observers alike). {@code lastContactMs} is the
 * last successful answer from the leader: after the fetch timeout a voter starts a pre-vote and an
 * observer forgets the leader. {@code download} is set while a snapshot is being pulled.
 */
final class FollowerState implements EpochState {
    private final int epoch;
    private final int leaderId;
    long lastContactMs;
    long nextFetchAtMs;
    SnapshotDownload download;

    FollowerState(int epoch, int leaderId, long nowMs) {
        this.epoch = epoch;
        this.leaderId = leaderId;
        this.lastContactMs = nowMs;
        this.nextFetchAtMs = nowMs;
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
