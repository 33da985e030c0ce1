package io.varve.broker.replica.throttle;

/**
 * A quota of bytes per second as a leaky bucket: each transfer adds its bytes to what is owed, what is owed drains
 * at the rate, and the quota is exceeded while anything is owed. So the bytes moved over any window of a few seconds
 * stay near the rate (one transfer of overshoot at most, never a burst of saved-up credit after a pause, which a
 * sliding average would allow). The rate may change at any time; it applies from then on. Pure: the time is passed
 * in; thread-safe.
 */
public final class ByteRateQuota {
    /** The rate Kafka's throttle keys default to: no limit. */
    public static final long UNLIMITED = Long.MAX_VALUE;

    private double owedBytes;
    private long lastMs = Long.MIN_VALUE;

    /** Records {@code bytes} moved at {@code nowMs} under {@code rateBytesPerSec}. */
    public synchronized void record(long bytes, long rateBytesPerSec, long nowMs) {
        drain(rateBytesPerSec, nowMs);
        if (rateBytesPerSec != UNLIMITED && bytes > 0) {
            owedBytes += bytes;
        }
    }

    /** Whether a transfer at {@code nowMs} must wait: bytes moved earlier are not yet paid off at the rate. */
    public synchronized boolean exceeded(long rateBytesPerSec, long nowMs) {
        drain(rateBytesPerSec, nowMs);
        return owedBytes > 0;
    }

    /** How long until {@link #exceeded} turns false at the current rate (0 when it is false now). */
    public synchronized long waitMs(long rateBytesPerSec, long nowMs) {
        drain(rateBytesPerSec, nowMs);
        if (owedBytes <= 0 || rateBytesPerSec <= 0) {
            return owedBytes <= 0 ? 0 : Long.MAX_VALUE;
        }
        return (long) Math.ceil(owedBytes * 1000.0 / rateBytesPerSec);
    }

    private void drain(long rateBytesPerSec, long nowMs) {
        if (rateBytesPerSec == UNLIMITED) {
            owedBytes = 0;
        } else if (lastMs != Long.MIN_VALUE && nowMs > lastMs) {
            owedBytes = Math.max(0, owedBytes - rateBytesPerSec * ((nowMs - lastMs) / 1000.0));
        }
        lastMs = Math.max(lastMs, nowMs);
    }
}
