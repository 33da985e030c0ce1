package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import org.junit.jupiter.api.Test;

class FetchSessionCollectorTest {
    @Test
    void theCachesSessionsPartitionsAndEvictionsAreReadAtEachScrape() {
        long[] state = {3, 17, 2};
        FetchSessionStats stats = new FetchSessionStats() {
            @Override
            public int sessionCount() {
                return (int) state[0];
            }

            @Override
            public long partitionsCached() {
                return state[1];
            }

            @Override
            public long evictions() {
                return state[2];
            }
        };
        FetchSessionCollector collector = new FetchSessionCollector(stats);
        MetricSnapshots first = collector.collect();
        assertThat(gauge(first, MetricNames.FETCH_SESSIONS)).isEqualTo(3);
        assertThat(gauge(first, MetricNames.FETCH_SESSION_PARTITIONS)).isEqualTo(17);
        assertThat(counter(first, MetricNames.FETCH_SESSION_EVICTIONS)).isEqualTo(2);
        state[2] = 5;
        assertThat(counter(collector.collect(), MetricNames.FETCH_SESSION_EVICTIONS))
                .isEqualTo(5);
    }

    private static double gauge(MetricSnapshots snapshots, String name) {
        return ((GaugeSnapshot.GaugeDataPointSnapshot) only(snapshots, name)).getValue();
    }

    private static double counter(MetricSnapshots snapshots, String name) {
        return ((CounterSnapshot.CounterDataPointSnapshot) only(snapshots, name)).getValue();
    }

    private static DataPointSnapshot only(MetricSnapshots snapshots, String name) {
        for (MetricSnapshot s : snapshots) {
            if (s.getMetadata().getName().equals(name)) {
                assertThat(s.getDataPoints()).hasSize(1);
                return s.getDataPoints().get(0);
            }
        }
        throw new AssertionError("no family " + name);
    }
}
