package io.varve.http.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Kafka's client quota metrics ({@code kafka.server:type=Produce|Fetch|Request|ControllerMutation,user=U,client-id=C}
 * attributes {@code throttle-time} and {@code byte-rate} / {@code request-time} / {@code mutation-rate}) under the
 * names the jmx_exporter gives them: {@code kafka_server_produce_throttle_time{user="U",client_id="C"}}. A series
 * exists for each client a quota tracks (its windows saw a request); a node without quotas has none.
 */
final class ClientQuotaCollector implements MultiCollector {
    private final ClientQuotaSource source;

    ClientQuotaCollector(ClientQuotaSource source) {
        this.source = source;
    }

    @Override
    public MetricSnapshots collect() {
        Map<ClientQuotaSource.QuotaType, GaugeSnapshot.Builder> throttles =
                new EnumMap<>(ClientQuotaSource.QuotaType.class);
        Map<ClientQuotaSource.QuotaType, GaugeSnapshot.Builder> rates =
                new EnumMap<>(ClientQuotaSource.QuotaType.class);
        for (ClientQuotaSource.QuotaType type : ClientQuotaSource.QuotaType.values()) {
            throttles.put(
                    type,
                    GaugeSnapshot.builder()
                            .name(MetricNames.quotaThrottleTime(type))
                            .help("Mean throttle time in ms the " + type.group + " quota imposed within its windows"));
            rates.put(
                    type,
                    GaugeSnapshot.builder().name(MetricNames.quotaRate(type)).help(type.rateHelp));
        }
        source.report((type, user, clientId, rate, throttleTimeMs) -> {
            Labels labels = Labels.of("client_id", clientId, "user", user);
            throttles
                    .get(type)
                    .dataPoint(GaugeDataPointSnapshot.builder()
                            .labels(labels)
                            .value(throttleTimeMs)
                            .build());
            rates.get(type)
                    .dataPoint(GaugeDataPointSnapshot.builder()
                            .labels(labels)
                            .value(rate)
                            .build());
        });
        List<MetricSnapshot> out = new ArrayList<>();
        for (ClientQuotaSource.QuotaType type : ClientQuotaSource.QuotaType.values()) {
            out.add(throttles.get(type).build());
            out.add(rates.get(type).build());
        }
        return new MetricSnapshots(out);
    }
}
