package io.varve.raft.core.message;

/** What a log entry carries: data for the state machine, or a control record of the quorum itself. */
public enum EntryType {
    /** Opaque bytes proposed by the state machine. */
    DATA,
    /** Appended by a new leader at the start of its epoch (Kafka's LeaderChangeMessage control record). */
    LEADER_CHANGE
}
