package io.varve.http.clientmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ClientTelemetryStoreTest {
    private final AtomicLong clockMs = new AtomicLong(1_000);
    private final ClientTelemetryStore store = new ClientTelemetryStore(clockMs::get);

    private String scrape() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, store.collect());
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void sumsBecomeCountersGaugesStayGaugesLabelledByClientAndAttributes() throws Exception {
        store.push(
                "inst-1",
                "app",
                List.of(
                        new OtlpMetricsDecoder.Point("org.apache.kafka.producer.record.send.total", Map.of(), 5, true),
                        new OtlpMetricsDecoder.Point(
                                "org.apache.kafka.producer.node.request.latency.avg",
                                Map.of("node.id", "1"),
                                2.5,
                                false)),
                1000);
        String text = scrape();
        assertThat(text)
                .contains("# TYPE org_apache_kafka_producer_record_send_total counter")
                .contains(
                        "org_apache_kafka_producer_record_send_total{client_id=\"app\",client_instance_id=\"inst-1\"} 5.0")
                .contains("# TYPE org_apache_kafka_producer_node_request_latency_avg gauge")
                .contains(
                        "org_apache_kafka_producer_node_request_latency_avg{client_id=\"app\",client_instance_id=\"inst-1\",node_id=\"1\"} 2.5");
    }

    @Test
    void aClientSilentForThreeIntervalsOrTerminatedLeavesTheScrape() throws Exception {
        List<OtlpMetricsDecoder.Point> one = List.of(new OtlpMetricsDecoder.Point("m", Map.of(), 1, false));
        store.push("a", "app-a", one, 1000);
        store.push("b", "app-b", one, 1000);
        store.forget("b");
        assertThat(scrape()).contains("app-a").doesNotContain("app-b");
        clockMs.addAndGet(3_001);
        assertThat(scrape()).doesNotContain("app-a");
        assertThat(store.clients()).isZero();
    }
}
