package io.varve.tiered.spi;

/** The per-segment files uploaded next to the log segment, each under its own object key suffix. */
public enum IndexType {
    OFFSET("index"),
    TIMESTAMP("timeindex"),
    PRODUCER_SNAPSHOT("snapshot"),
    LEADER_EPOCH("leader_epoch_checkpoint"),
    TRANSACTION("txnindex");

    private final String suffix;

    IndexType(String suffix) {
        this.suffix = suffix;
    }

    /** The object key suffix (after the dot). */
    public String suffix() {
        return suffix;
    }
}
