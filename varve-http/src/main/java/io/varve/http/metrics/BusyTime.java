package io.varve.http.metrics;

import java.util.concurrent.atomic.LongAdder;

/**
 * Time a pool of threads spent working, from which a scrape derives the fraction they were idle since the previous
 * scrape (Kafka's {@code RequestHandlerAvgIdlePercent} and {@code NetworkProcessorAvgIdlePercent}). Recording adds to a
 * {@link LongAdder}: no lock, no allocation.
 */
public final class BusyTime {
    private final LongAdder busyNanos = new LongAdder();
    private volatile int threads;
    private long lastSampleNanos = Long.MIN_VALUE;
    private long lastBusyNanos;

    /** {@code threads} threads share the work; the idle ratio divides by their summed time. */
    public BusyTime(int threads) {
        this.threads = threads;
    }

    /** The pool's size, once it is known (the network threads are created after the metrics). */
    public void threads(int count) {
        this.threads = count;
    }

    /** A thread of the pool worked {@code nanos}. */
    public void busy(long nanos) {
        busyNanos.add(nanos);
    }

    long busyNanos() {
        return busyNanos.sum();
    }

    /**
     * The fraction of thread time that was idle between the previous call and {@code nowNanos}, in [0, 1]; 1 at the
     * first call, when nothing was measured yet.
     */
    public synchronized double idleRatioSince(long nowNanos) {
        long busy = busyNanos.sum();
        long elapsed = lastSampleNanos == Long.MIN_VALUE ? 0 : nowNanos - lastSampleNanos;
        long busyDelta = busy - lastBusyNanos;
        lastSampleNanos = nowNanos;
        lastBusyNanos = busy;
        int n = threads;
        if (elapsed <= 0 || n <= 0) {
            return 1.0;
        }
        return Math.max(0.0, Math.min(1.0, 1.0 - (double) busyDelta / ((double) elapsed * n)));
    }
}
