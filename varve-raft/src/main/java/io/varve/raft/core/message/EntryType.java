package io.varve.raft.core.message;

/** What a log entry carries: data for the state machine, or a control record of the quorum itself. */
public enum EntryType {
    /** Opaque bytes proposed by the state machine. */
    DATA,
    /** Appended by a new leader at the start of its epoch (Kafka's LeaderChangeMessage control record). */
    LEADER_CHANGE,
    /** The whole voter set from this entry on (KIP-853's VotersRecord): in effect as soon as it is appended. */
    VOTERS
}
