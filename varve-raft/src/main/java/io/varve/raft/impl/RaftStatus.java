package io.varve.raft.impl;

/** A consistent snapshot of what other threads may ask a node; published after each change. */
public record RaftStatus(int leaderId, int epoch, long highWatermark) {

    public static final RaftStatus NOT_STARTED = new RaftStatus(-1, 0, 0);
}
