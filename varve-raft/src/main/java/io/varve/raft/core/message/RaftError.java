package io.varve.raft.core.message;

/**
 * The error codes the Raft messages carry, with Kafka's names and numbers (see Kafka's {@code Errors}),
 * so that a protocol seam maps them by {@link #code()} without a table.
 */
public enum RaftError {
    NONE(0),
    UNKNOWN_SERVER_ERROR(-1),
    OFFSET_OUT_OF_RANGE(1),
    NOT_LEADER_OR_FOLLOWER(6),
    REQUEST_TIMED_OUT(7),
    BROKER_NOT_AVAILABLE(8),
    UNSUPPORTED_VERSION(35),
    INVALID_REQUEST(42),
    FENCED_LEADER_EPOCH(74),
    UNKNOWN_LEADER_EPOCH(75),
    INCONSISTENT_VOTER_SET(94),
    SNAPSHOT_NOT_FOUND(98),
    POSITION_OUT_OF_RANGE(99),
    INCONSISTENT_CLUSTER_ID(104),
    DUPLICATE_VOTER(126),
    VOTER_NOT_FOUND(127);

    private final short code;

    RaftError(int code) {
        this.code = (short) code;
    }

    /** Kafka's wire code for this error. */
    public short code() {
        return code;
    }
}
