package io.varve.http.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/** {@code kafka.server:type=FetchSessionCache}: sessions, partitions cached, evictions. */
final class FetchSessionCollector implements MultiCollector {
    private final FetchSessionStats stats;

    FetchSessionCollector(FetchSessionStats stats) {
        this.stats = stats;
    }

    @Override
    public MetricSnapshots collect() {
        return new MetricSnapshots(
                gauge(MetricNames.FETCH_SESSIONS, "Incremental fetch sessions open", stats.sessionCount()),
                gauge(
                        MetricNames.FETCH_SESSION_PARTITIONS,
                        "Partitions held by the incremental fetch sessions",
                        stats.partitionsCached()),
                CounterSnapshot.builder()
                        .name(MetricNames.FETCH_SESSION_EVICTIONS)
                        .help("Incremental fetch sessions evicted to make room for new ones")
                        .dataPoint(CounterDataPointSnapshot.builder()
                                .value(stats.evictions())
                                .build())
                        .build());
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(GaugeDataPointSnapshot.builder().value(value).build())
                .build();
    }
}
