package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.varve.http.HttpRequest;
import io.varve.http.view.GroupLag;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NodeStateFamiliesTest {
    private static final long REFRESH_MS = 10_000;
    private long nowNanos = 0;
    private final FakeBrokerView view = new FakeBrokerView();

    @Test
    void theLagShowsACommitOnceTheRefreshHasRunAndNotBefore() {
        view.partitions = List.of(FakeBrokerView.partition("orders", 0, 100, 4096));
        view.lag = List.of(new GroupLag("billing", "orders", 0, 40, 100, 60, 1.5));
        NodeStateFamilies families = new NodeStateFamilies(view, () -> 0, 2_000, REFRESH_MS, () -> nowNanos);
        assertThat(value(families, MetricNames.GROUP_LAG)).isEqualTo(60);
        assertThat(value(families, MetricNames.LOG_END_OFFSET)).isEqualTo(100);

        view.lag = List.of(new GroupLag("billing", "orders", 0, 90, 100, 10, 0.2));
        view.partitions = List.of(FakeBrokerView.partition("orders", 0, 120, 8192));
        nowNanos += TimeUnit.MILLISECONDS.toNanos(REFRESH_MS - 1);
        assertThat(value(families, MetricNames.GROUP_LAG))
                .as("within the interval")
                .isEqualTo(60);
        assertThat(view.partitionReads).as("the partitions were read once").isEqualTo(1);

        nowNanos += TimeUnit.MILLISECONDS.toNanos(1);
        assertThat(value(families, MetricNames.GROUP_LAG))
                .as("after the refresh")
                .isEqualTo(10);
        assertThat(value(families, MetricNames.GROUP_OFFSET)).isEqualTo(90);
        assertThat(value(families, MetricNames.LOG_END_OFFSET)).isEqualTo(120);
        assertThat(value(families, MetricNames.LOG_SIZE)).isEqualTo(8192);
        assertThat(view.partitionReads).isEqualTo(2);
    }

    @Test
    void theRenderedFamiliesAreTheWritersOwnTextAndOpenMetricsLeavesTheEndMarkerOut() throws Exception {
        view.partitions = List.of(FakeBrokerView.partition("orders", 0, 100, 4096));
        NodeStateFamilies families = new NodeStateFamilies(view, () -> 0, 2_000, REFRESH_MS, () -> nowNanos);
        ExpositionFormats formats = ExpositionFormats.init();
        NodeStateFamilies.State state = families.current();
        var direct = new java.io.ByteArrayOutputStream();
        formats.getPrometheusTextFormatWriter().write(direct, state.families);
        assertThat(state.rendered(formats.getPrometheusTextFormatWriter(), false))
                .isEqualTo(direct.toByteArray());
        String openMetrics =
                new String(state.rendered(formats.getOpenMetricsTextFormatWriter(), true), StandardCharsets.UTF_8);
        assertThat(openMetrics)
                .contains("kafka_log_log_logendoffset{partition=\"0\",topic=\"orders\"} 100.0")
                .doesNotContain("# EOF");
    }

    @Test
    void aScrapeJoinsTheLiveFamiliesAndTheStateWithOneEndMarkerAtTheEnd() throws Exception {
        view.partitions = List.of(FakeBrokerView.partition("orders", 0, 100, 4096));
        NodeMetrics metrics = new NodeMetrics();
        metrics.attach(view, 4, 2_000, 0);
        metrics.traffic().topic("orders").produced(4096, 100);
        String open = new String(
                metrics.scrape(new HttpRequest("GET", "/metrics", Map.of(), "application/openmetrics-text"))
                        .body(),
                StandardCharsets.UTF_8);
        assertThat(open).endsWith("\n# EOF\n");
        assertThat(open.indexOf("# EOF")).isEqualTo(open.length() - "# EOF\n".length());
        assertThat(open)
                .contains("kafka_server_brokertopicmetrics_messagesin_total{topic=\"orders\"} 100")
                .contains("kafka_log_log_size{partition=\"0\",topic=\"orders\"} 4096")
                .contains("jvm_threads_current ");
        String text = new String(
                metrics.scrape(new HttpRequest("GET", "/metrics", Map.of(), "text/plain"))
                        .body(),
                StandardCharsets.UTF_8);
        assertThat(text)
                .doesNotContain("# EOF")
                .contains("kafka_log_log_size{partition=\"0\",topic=\"orders\"} 4096")
                .contains("kafka_server_brokertopicmetrics_bytesin_total{topic=\"orders\"} 4096");
    }

    @Test
    void aScrapeShowsWhatThePreviousScrapesCostAndWhatValidationCostPerTopic() throws Exception {
        view.partitions = List.of(FakeBrokerView.partition("orders", 0, 100, 4096));
        NodeMetrics metrics = new NodeMetrics();
        metrics.attach(view, 4, 2_000, 0);
        metrics.traffic().topic("orders").recordsChecked(1_500_000_000L);
        HttpRequest get = new HttpRequest("GET", "/metrics", Map.of(), "text/plain");
        String first = new String(metrics.scrape(get).body(), StandardCharsets.UTF_8);
        assertThat(first)
                .contains("varve_metrics_scrapes_total 0.0")
                .contains("varve_metrics_scrape_cpu_seconds_total 0.0")
                .contains("varve_schema_validation_seconds_total{topic=\"orders\"} 1.5");
        metrics.scrape(get);
        String third = new String(metrics.scrape(get).body(), StandardCharsets.UTF_8);
        assertThat(third).contains("varve_metrics_scrapes_total 2.0");
        double cpu = Double.parseDouble(third.lines()
                .filter(l -> l.startsWith("varve_metrics_scrape_cpu_seconds_total "))
                .findFirst()
                .orElseThrow()
                .substring("varve_metrics_scrape_cpu_seconds_total ".length()));
        // two scrapes that each computed every family (refresh 0) cannot have cost no CPU at all
        assertThat(cpu).isGreaterThan(0).isLessThan(60);
    }

    private double value(NodeStateFamilies families, String name) {
        for (MetricSnapshot s : families.current().families) {
            if (s.getMetadata().getPrometheusName().equals(name)
                    || s.getMetadata().getName().equals(name)) {
                DataPointSnapshot p = s.getDataPoints().get(0);
                return ((GaugeSnapshot.GaugeDataPointSnapshot) p).getValue();
            }
        }
        throw new AssertionError("no family " + name);
    }
}
