package io.varve.coordinator.txn;

/**
 * The transaction coordinator's settings, with Kafka's key names: {@code transaction.max.timeout.ms} (900000) and
 * {@code transaction.abort.timed.out.transaction.cleanup.interval.ms} (10000).
 */
public record TxnCoordinatorConfig(int maxTimeoutMs, long abortTimedOutCheckIntervalMs) {
    public static final int DEFAULT_MAX_TIMEOUT_MS = 900_000;
    public static final long DEFAULT_ABORT_CHECK_INTERVAL_MS = 10_000;

    public TxnCoordinatorConfig {
        if (maxTimeoutMs <= 0) {
            throw new IllegalArgumentException("transaction.max.timeout.ms must be positive: " + maxTimeoutMs);
        }
        if (abortTimedOutCheckIntervalMs <= 0) {
            throw new IllegalArgumentException(
                    "transaction.abort.timed.out.transaction.cleanup.interval.ms must be positive: "
                            + abortTimedOutCheckIntervalMs);
        }
    }

    public static TxnCoordinatorConfig defaults() {
        return new TxnCoordinatorConfig(DEFAULT_MAX_TIMEOUT_MS, DEFAULT_ABORT_CHECK_INTERVAL_MS);
    }
}
