package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.ClassicHistogramBucket;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot.HistogramDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class HistogramTest {
    @Test
    void eachValueLandsInTheFirstBucketWhoseBoundIsAtLeastItAndLargerOnesInInf() {
        Histogram h = new Histogram(new double[] {1, 10, 100});
        h.observe(0.5);
        h.observe(1); // on the bound: le="1"
        h.observe(5);
        h.observe(1000);
        HistogramDataPointSnapshot s = h.snapshot(Labels.EMPTY);
        List<Long> counts = new ArrayList<>();
        for (ClassicHistogramBucket b : s.getClassicBuckets()) {
            counts.add(b.getCount());
        }
        assertThat(counts).containsExactly(2L, 1L, 0L, 1L);
        assertThat(s.getCount()).isEqualTo(4);
        assertThat(s.getSum()).isEqualTo(1006.5);
    }

    @Test
    void nanosAreRecordedAsMilliseconds() {
        Histogram h = new Histogram(Histogram.LATENCY_MS);
        h.observeNanosAsMs(2_000_000);
        assertThat(h.snapshot(Labels.EMPTY).getSum()).isEqualTo(2.0);
        assertThat(h.count()).isEqualTo(1);
    }

    @Test
    void concurrentObservationsAreAllCounted() throws Exception {
        Histogram h = new Histogram(Histogram.SIZE_BYTES);
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int i = 0; i < 10_000; i++) {
                    h.observe(i);
                }
            });
            threads[t].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertThat(h.count()).isEqualTo(40_000);
    }
}
