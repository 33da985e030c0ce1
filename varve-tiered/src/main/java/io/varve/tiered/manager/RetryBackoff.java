package io.varve.tiered.manager;

/**
 * Exponential backoff with jitter for failing remote storage work, as Kafka's
 * {@code remote.log.manager.task.retry.backoff.ms} / {@code .backoff.max.ms} / {@code .jitter}: the n-th
 * consecutive failure waits {@code initialMs * 2^(n-1)}, capped at {@code maxMs}, times a random factor in
 * {@code [1 - jitter, 1 + jitter]}, and never more than {@code maxMs}. Pure: the random draw is passed in.
 */
public record RetryBackoff(long initialMs, long maxMs, double jitter) {

    public RetryBackoff {
        if (initialMs < 1 || maxMs < initialMs) {
            throw new IllegalArgumentException("backoff needs 1 <= initialMs <= maxMs: " + initialMs + ", " + maxMs);
        }
        if (!(jitter >= 0 && jitter < 1)) {
            throw new IllegalArgumentException("jitter must be in [0, 1): " + jitter);
        }
    }

    /**
     * @param failures consecutive failures so far (at least 1)
     * @param random   a uniform draw in [0, 1)
     */
    public long delayMs(int failures, double random) {
        if (failures < 1) {
            throw new IllegalArgumentException("failures must be at least 1: " + failures);
        }
        int doublings = Math.min(failures - 1, 62);
        double base = Math.min((double) maxMs, initialMs * Math.pow(2, doublings));
        double factor = 1 + jitter * (2 * random - 1);
        return Math.max(1, Math.min(maxMs, Math.round(base * factor)));
    }
}
