package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.varve.http.metrics.ClientQuotaSource.QuotaType;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClientQuotaCollectorTest {
    @Test
    void eachTrackedClientGetsAThrottleTimeAndARateSeriesUnderKafkasNamesAndLabels() {
        ClientQuotaCollector collector = new ClientQuotaCollector(sink -> {
            sink.client(QuotaType.PRODUCE, "alice", "", 1500, 250);
            sink.client(QuotaType.FETCH, "", "app", 4000, 0);
            sink.client(QuotaType.REQUEST, "alice", "", 12.5, 0);
            sink.client(QuotaType.CONTROLLER_MUTATION, "", "app", 0.2, 40);
        });
        Map<String, Double> series = new HashMap<>();
        MetricSnapshots snapshots = collector.collect();
        for (MetricSnapshot s : snapshots) {
            for (GaugeSnapshot.GaugeDataPointSnapshot p : ((GaugeSnapshot) s).getDataPoints()) {
                series.put(
                        s.getMetadata().getName() + "{user=" + p.getLabels().get("user") + ",client_id="
                                + p.getLabels().get("client_id") + "}",
                        p.getValue());
            }
        }
        assertThat(series)
                .containsOnly(
                        Map.entry("kafka_server_produce_throttle_time{user=alice,client_id=}", 250.0),
                        Map.entry("kafka_server_produce_byte_rate{user=alice,client_id=}", 1500.0),
                        Map.entry("kafka_server_fetch_throttle_time{user=,client_id=app}", 0.0),
                        Map.entry("kafka_server_fetch_byte_rate{user=,client_id=app}", 4000.0),
                        Map.entry("kafka_server_request_throttle_time{user=alice,client_id=}", 0.0),
                        Map.entry("kafka_server_request_request_time{user=alice,client_id=}", 12.5),
                        Map.entry("kafka_server_controllermutation_throttle_time{user=,client_id=app}", 40.0),
                        Map.entry("kafka_server_controllermutation_mutation_rate{user=,client_id=app}", 0.2));
    }

    @Test
    void withoutTrackedClientsTheFamiliesHaveNoSeries() {
        MetricSnapshots snapshots = new ClientQuotaCollector(sink -> {}).collect();
        assertThat(snapshots.size()).isEqualTo(8);
        for (MetricSnapshot s : snapshots) {
            assertThat(s.getDataPoints()).isEmpty();
        }
    }
}
