package io.varve.coordinator.txn;

/**
 * Kafka's transaction states, with the names DescribeTransactions and ListTransactions report. Varve never enters
 * PREPARE_EPOCH_FENCE: fencing an ongoing transaction is written at once as PREPARE_ABORT at the bumped epoch.
 */
public enum TxnState {
    EMPTY(0, "Empty"),
    ONGOING(1, "Ongoing"),
    PREPARE_COMMIT(2, "PrepareCommit"),
    PREPARE_ABORT(3, "PrepareAbort"),
    COMPLETE_COMMIT(4, "CompleteCommit"),
    COMPLETE_ABORT(5, "CompleteAbort"),
    DEAD(6, "Dead"),
    PREPARE_EPOCH_FENCE(7, "PrepareEpochFence");

    private final int id;
    private final String displayName;

    TxnState(int id, String displayName) {
        this.id = id;
        this.displayName = displayName;
    }

    public int id() {
        return id;
    }

    public String displayName() {
        return displayName;
    }

    public boolean isPrepare() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    public boolean isComplete() {
        return this == COMPLETE_COMMIT || this == COMPLETE_ABORT;
    }

    public static TxnState fromId(int id) {
        for (TxnState s : values()) {
            if (s.id == id) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown transaction state id " + id);
    }

    /** The state whose display name matches, ignoring case, or null. */
    public static TxnState fromName(String name) {
        for (TxnState s : values()) {
            if (s.displayName.equalsIgnoreCase(name)) {
                return s;
            }
        }
        return null;
    }
}
