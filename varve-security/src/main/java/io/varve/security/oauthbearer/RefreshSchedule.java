package io.varve.security.oauthbearer;

/**
 * When the broker's own login fetches its next token, with Kafka's {@code sasl.login.refresh.*} semantics: at {@code
 * windowFactor} of the token's lifetime plus up to {@code windowJitter} of it at random, but no sooner than {@code
 * minPeriodMs} after it was obtained and, if possible, at least {@code bufferMs} before it expires; when the
 * remaining lifetime is shorter than the minimum period and the buffer together, both are ignored. A failed fetch is
 * retried after {@code retryBackoffMs}, doubling up to {@code retryBackoffMaxMs}. Pure: the clock and the random
 * draw are handed in.
 */
public record RefreshSchedule(
        double windowFactor,
        double windowJitter,
        long minPeriodMs,
        long bufferMs,
        long retryBackoffMs,
        long retryBackoffMaxMs) {

    /** Kafka's defaults: 0.8, 0.05, 60 s, 300 s, 100 ms, 10 s. */
    public static final RefreshSchedule DEFAULTS = new RefreshSchedule(0.8, 0.05, 60_000, 300_000, 100, 10_000);

    public RefreshSchedule {
        if (windowFactor < 0.5 || windowFactor > 1.0) {
            throw new IllegalArgumentException("the refresh window factor must be between 0.5 and 1.0");
        }
        if (windowJitter < 0 || windowJitter > 0.25) {
            throw new IllegalArgumentException("the refresh window jitter must be between 0 and 0.25");
        }
        if (minPeriodMs < 0 || bufferMs < 0 || retryBackoffMs < 1 || retryBackoffMaxMs < retryBackoffMs) {
            throw new IllegalArgumentException("refresh periods must be at least 0, backoffs at least 1 ms, in order");
        }
    }

    /**
     * The wall-clock time to fetch the next token, for a token obtained at {@code obtainedAtMs} that expires at
     * {@code expiresAtMs}; {@code random} in [0, 1).
     */
    public long refreshAtMs(long obtainedAtMs, long expiresAtMs, double random) {
        long lifetimeMs = expiresAtMs - obtainedAtMs;
        if (lifetimeMs <= 0) {
            return obtainedAtMs; // already expired: fetch again at once
        }
        long at = obtainedAtMs + (long) (lifetimeMs * Math.min(1.0, windowFactor + windowJitter * random));
        if (minPeriodMs + bufferMs > lifetimeMs) {
            return at;
        }
        at = Math.min(at, expiresAtMs - bufferMs);
        return Math.max(at, obtainedAtMs + minPeriodMs);
    }

    /** How long to wait before the {@code failures}-th retry of a failed fetch (1 for the first). */
    public long retryDelayMs(int failures) {
        long delay = retryBackoffMs;
        for (int i = 1; i < failures && delay < retryBackoffMaxMs; i++) {
            delay *= 2;
        }
        return Math.min(delay, retryBackoffMaxMs);
    }
}
