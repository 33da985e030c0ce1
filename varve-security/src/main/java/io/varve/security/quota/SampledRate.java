package io.varve.security.quota;

/**
 * A rate per second over {@code samples} windows of {@code windowMs}, measured as Kafka measures quota rates: the
 * sum of the live samples over the time they cover, that time counted as at least {@code samples - 1} whole windows
 * (so that one burst right after a quiet period is not a huge rate). A sample older than {@code samples} windows no
 * longer counts. Not thread safe.
 */
public final class SampledRate {
    private final int samples;
    private final long windowMs;
    private final long[] startMs;
    private final double[] values;
    private int current;

    public SampledRate(int samples, long windowMs, long nowMs) {
        if (samples < 2) {
            throw new IllegalArgumentException("a sampled rate needs at least two samples: " + samples);
        }
        if (windowMs <= 0) {
            throw new IllegalArgumentException("window must be positive: " + windowMs);
        }
        this.samples = samples;
        this.windowMs = windowMs;
        this.startMs = new long[samples];
        this.values = new double[samples];
        startMs[0] = nowMs;
        for (int i = 1; i < samples; i++) {
            startMs[i] = Long.MIN_VALUE; // never started
        }
    }

    public void record(double value, long nowMs) {
        advance(nowMs);
        values[current] += value;
    }

    /** The rate per second at {@code nowMs}. */
    public double ratePerSecond(long nowMs) {
        advance(nowMs);
        return total(nowMs) * 1000.0 / measuredMs(nowMs);
    }

    /** The sum of the samples that still count. */
    double total(long nowMs) {
        double sum = 0;
        for (int i = 0; i < samples; i++) {
            if (live(i, nowMs)) {
                sum += values[i];
            }
        }
        return sum;
    }

    /** The time the live samples cover, at least {@code samples - 1} windows. */
    public long measuredMs(long nowMs) {
        long oldest = nowMs;
        for (int i = 0; i < samples; i++) {
            if (live(i, nowMs)) {
                oldest = Math.min(oldest, startMs[i]);
            }
        }
        long elapsed = Math.max(0, nowMs - oldest);
        long fullWindows = elapsed / windowMs;
        if (fullWindows < samples - 1) {
            elapsed += (samples - 1 - fullWindows) * windowMs;
        }
        return Math.max(elapsed, 1);
    }

    /** The longest throttle that can be needed: the whole span the samples cover. */
    public long maxThrottleMs() {
        return samples * windowMs;
    }

    private boolean live(int i, long nowMs) {
        return startMs[i] != Long.MIN_VALUE && nowMs - startMs[i] < samples * windowMs;
    }

    private void advance(long nowMs) {
        if (nowMs - startMs[current] < windowMs) {
            return;
        }
        current = (current + 1) % samples;
        startMs[current] = nowMs;
        values[current] = 0;
    }
}
