package io.varve.storage;

/** Package-private operations of the storage engine that tests in other packages need. */
public final class LogTestAccess {

    private LogTestAccess() {}

    /** Rolls a non-empty active segment now. */
    public static void roll(PartitionLog log) {
        log.roll();
    }
}
