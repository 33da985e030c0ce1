package io.varve.http.clientmetrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.PrometheusNaming;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * What clients pushed (KIP-714), kept per client instance until it pushes again, terminates, or stays silent for
 * three push intervals, and shown at each scrape: a monotonic sum as a counter, everything else as a gauge, named
 * as the client named it with the characters Prometheus does not allow replaced ({@code
 * org.apache.kafka.producer.record.send.total} → {@code org_apache_kafka_producer_record_send_total}), labelled by
 * {@code client_id}, {@code client_instance_id} and the data point's attributes. At most {@link #MAX_CLIENTS}
 * instances are kept; a push beyond that is dropped.
 */
public final class ClientTelemetryStore implements MultiCollector {
    public static final int MAX_CLIENTS = 10_000;

    private final LongSupplier clockMs;
    private final ConcurrentHashMap<String, Pushed> byInstance = new ConcurrentHashMap<>();

    private record Pushed(String clientId, List<OtlpMetricsDecoder.Point> points, long expiresAtMs) {}

    public ClientTelemetryStore(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    /** Replaces what client instance {@code instanceId} pushed before; {@code intervalMs} is its push interval. */
    public boolean push(String instanceId, String clientId, List<OtlpMetricsDecoder.Point> points, long intervalMs) {
        if (byInstance.size() >= MAX_CLIENTS && !byInstance.containsKey(instanceId)) {
            expire();
            if (byInstance.size() >= MAX_CLIENTS) {
                return false;
            }
        }
        byInstance.put(instanceId, new Pushed(clientId, List.copyOf(points), clockMs.getAsLong() + 3 * intervalMs));
        return true;
    }

    /** The client instance said it terminates: its series leave the scrape. */
    public void forget(String instanceId) {
        byInstance.remove(instanceId);
    }

    public int clients() {
        return byInstance.size();
    }

    private void expire() {
        long now = clockMs.getAsLong();
        byInstance.values().removeIf(p -> p.expiresAtMs < now);
    }

    @Override
    public MetricSnapshots collect() {
        expire();
        Map<String, Family> families = new TreeMap<>();
        byInstance.forEach((instance, pushed) -> {
            for (OtlpMetricsDecoder.Point p : pushed.points) {
                if (Double.isNaN(p.value())) {
                    continue;
                }
                String name = PrometheusNaming.sanitizeMetricName(p.metric());
                Family f = families.computeIfAbsent(name, n -> new Family(p.monotonic()));
                Map<String, String> labels = new LinkedHashMap<>();
                labels.put("client_id", pushed.clientId);
                labels.put("client_instance_id", instance);
                p.attributes().forEach((k, v) -> labels.putIfAbsent(PrometheusNaming.sanitizeLabelName(k), v));
                f.add(labels, p.value());
            }
        });
        List<MetricSnapshot> out = new ArrayList<>();
        families.forEach((name, f) -> out.add(f.snapshot(name)));
        return new MetricSnapshots(out);
    }

    /** The points of one name; points whose label sets repeat are kept once (the first). */
    private static final class Family {
        final boolean counter;
        final List<Map<String, String>> labels = new ArrayList<>();
        final List<Double> values = new ArrayList<>();
        final Set<Map<String, String>> seen = new HashSet<>();

        Family(boolean counter) {
            this.counter = counter;
        }

        void add(Map<String, String> l, double value) {
            if (seen.add(l)) {
                labels.add(l);
                values.add(counter ? Math.max(0, value) : value);
            }
        }

        MetricSnapshot snapshot(String name) {
            String help = "Pushed by clients (KIP-714)";
            if (counter) {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
                for (int i = 0; i < labels.size(); i++) {
                    b.dataPoint(CounterDataPointSnapshot.builder()
                            .labels(toLabels(labels.get(i)))
                            .value(values.get(i))
                            .build());
                }
                return b.build();
            }
            GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
            for (int i = 0; i < labels.size(); i++) {
                b.dataPoint(GaugeDataPointSnapshot.builder()
                        .labels(toLabels(labels.get(i)))
                        .value(values.get(i))
                        .build());
            }
            return b.build();
        }

        private static Labels toLabels(Map<String, String> m) {
            Labels.Builder b = Labels.builder();
            m.forEach(b::label);
            return b.build();
        }
    }
}
