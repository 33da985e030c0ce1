package io.varve.http.metrics;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * A classic Prometheus histogram with fixed bucket bounds: one {@link LongAdder} per bucket, so recording neither
 * allocates nor takes a lock (contended threads spread over the adders' cells). A scrape reads the buckets one by one,
 * so a snapshot taken while values are recorded may be a few observations behind in some buckets; its count is the
 * sum of the buckets it read, which keeps it consistent with them.
 */
public final class Histogram {
    /** Latency bounds in milliseconds, from 0.1 ms to 30 s. */
    public static final double[] LATENCY_MS = {
        0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000
    };
    /** Size bounds in bytes, from 64 B to 64 MiB in powers of four. */
    public static final double[] SIZE_BYTES = {
        64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864
    };

    private final double[] upperBounds;
    /** One more than the bounds: the last bucket is +Inf. */
    private final LongAdder[] counts;

    private final DoubleAdder sum = new DoubleAdder();

    public Histogram(double[] upperBounds) {
        for (int i = 1; i < upperBounds.length; i++) {
            if (!(upperBounds[i] > upperBounds[i - 1])) {
                throw new IllegalArgumentException("bucket bounds must ascend");
            }
        }
        this.upperBounds = upperBounds.clone();
        this.counts = new LongAdder[upperBounds.length + 1];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
        }
    }

    public void observe(double value) {
        int i = 0;
        // at most 17 bounds: a linear scan beats a binary search's branches
        while (i < upperBounds.length && value > upperBounds[i]) {
            i++;
        }
        counts[i].increment();
        sum.add(value);
    }

    /** Observes a duration given in nanoseconds as milliseconds. */
    public void observeNanosAsMs(long nanos) {
        observe(nanos / 1_000_000.0);
    }

    public long count() {
        long total = 0;
        for (LongAdder c : counts) {
            total += c.sum();
        }
        return total;
    }

    /** Buckets, the last one {@code +Inf}. */
    int buckets() {
        return counts.length;
    }

    /** The upper bound of bucket {@code i}: {@code +Inf} for the last. */
    double upperBound(int i) {
        return i < upperBounds.length ? upperBounds[i] : Double.POSITIVE_INFINITY;
    }

    /** Observations in bucket {@code i} alone (not cumulative). */
    long bucketCount(int i) {
        return counts[i].sum();
    }

    double sum() {
        return sum.sum();
    }

    HistogramDataPointSnapshot snapshot(Labels labels) {
        double[] bounds = new double[counts.length];
        long[] perBucket = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            bounds[i] = i < upperBounds.length ? upperBounds[i] : Double.POSITIVE_INFINITY;
            perBucket[i] = counts[i].sum();
        }
        return HistogramDataPointSnapshot.builder()
                .classicHistogramBuckets(ClassicHistogramBuckets.of(bounds, perBucket))
                .sum(sum.sum())
                .labels(labels)
                .build();
    }
}
