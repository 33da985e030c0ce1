package io.varve.raft.core.runtime;

import io.varve.raft.core.message.RaftMessage;

/**
 * What a replica must remember across restarts (Kafka's {@code quorum-state} file): the highest epoch it
 * has seen, whom it voted for in that epoch and the leader it knows of; {@code -1} for none.
 */
public record ElectionRecord(int epoch, int votedId, int leaderId) {

    public ElectionRecord {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
        }
        if (votedId < RaftMessage.NO_ID || leaderId < RaftMessage.NO_ID) {
            throw new IllegalArgumentException("ids must be >= -1: votedId=" + votedId + ", leaderId=" + leaderId);
        }
    }

    public static ElectionRecord initial() {
        return new ElectionRecord(0, RaftMessage.NO_ID, RaftMessage.NO_ID);
    }
}
