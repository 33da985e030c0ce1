package io.varve.tiered.manager;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@code remote.log.manager.copy.max.bytes.per.second}: a token bucket shared by every upload of the broker.
 * The bucket holds at most one second of bytes; an upload takes its whole size up front, going into debt when
 * it is larger than what is there, and the caller waits until the debt is paid. So a burst after idleness is at
 * most one second's worth and the long-run rate never exceeds the limit. The reservation is pure (time is
 * passed in); {@link #acquire} does the waiting.
 */
public final class CopyThrottle {

    /** No limit. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final long bytesPerSecond;
    private final LongSupplier nanoClock;
    /** Guarded by this. Negative = debt. */
    private double tokens;

    private long lastRefillNanos;

    public CopyThrottle(long bytesPerSecond, LongSupplier nanoClock) {
        if (bytesPerSecond < 1) {
            throw new IllegalArgumentException("bytesPerSecond must be positive: " + bytesPerSecond);
        }
        this.bytesPerSecond = bytesPerSecond;
        this.nanoClock = nanoClock;
        this.lastRefillNanos = nanoClock.getAsLong();
        this.tokens = bytesPerSecond;
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Takes {@code bytes} from the bucket at {@code nowNanos}; returns how long the caller must wait, in nanos. */
    public synchronized long reserve(long bytes, long nowNanos) {
        if (bytesPerSecond == UNLIMITED || bytes <= 0) {
            return 0;
        }
        long elapsedNanos = Math.max(0, nowNanos - lastRefillNanos);
        lastRefillNanos = Math.max(lastRefillNanos, nowNanos);
        tokens = Math.min(bytesPerSecond, tokens + (double) elapsedNanos * bytesPerSecond / NANOS_PER_SECOND);
        tokens -= bytes;
        return tokens >= 0 ? 0 : (long) Math.ceil(-tokens * NANOS_PER_SECOND / bytesPerSecond);
    }

    /** Reserves {@code bytes} and sleeps as long as the bucket says. */
    public void acquire(long bytes) throws InterruptedException {
        long waitNanos = reserve(bytes, nanoClock.getAsLong());
        if (waitNanos > 0) {
            TimeUnit.NANOSECONDS.sleep(waitNanos);
        }
    }
}
