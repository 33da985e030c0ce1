package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class RequestHistogramTextTest {
    private final ExpositionFormats formats = ExpositionFormats.init();

    @Test
    void theHistogramsAreByteForByteWhatClientJavasWritersMakeOfThemInBothFormats() throws Exception {
        RequestMetrics requests = new RequestMetrics();
        RequestMetrics.Api produce = requests.register(0, "Produce");
        RequestMetrics.Api fetch = requests.register(1, "Fetch");
        requests.register(3, "Metadata"); // never asked: no series
        produce.record(9, 1_500, 20_000, 1_250_000, 0);
        produce.record(9, 70_000_000, 3_000_000_000L, 0, 45_000_000_000L); // past the last bounds: +Inf
        produce.responded(120);
        produce.sent(300_000, 4_700_000);
        for (int i = 0; i < 1_234; i++) {
            fetch.record(16, 90, i * 1_000L, i * 37_000L, 500_000_000);
            fetch.responded(1 << (i % 27));
            fetch.sent(i, i * 1_000_003L);
        }
        List<RequestMetrics.Api> active = requests.active();
        assertThat(active).extracting(a -> a.name).containsExactly("Fetch", "Produce");

        for (boolean openMetrics : new boolean[] {false, true}) {
            ExpositionFormatWriter writer =
                    openMetrics ? formats.getOpenMetricsTextFormatWriter() : formats.getPrometheusTextFormatWriter();
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            writer.write(expected, clientJavasModel(active));
            byte[] expectedBytes = expected.toByteArray();
            int length = openMetrics
                    ? NodeStateFamilies.lengthWithoutEof(expectedBytes, expectedBytes.length)
                    : expectedBytes.length;
            ByteArrayOutputStream actual = new ByteArrayOutputStream();
            new RequestHistogramText().write(actual, active, openMetrics);
            assertThat(actual.toString(StandardCharsets.UTF_8))
                    .as(openMetrics ? "OpenMetrics" : "text format")
                    .isEqualTo(new String(expectedBytes, 0, length, StandardCharsets.UTF_8));
        }
    }

    @Test
    void noApiAskedWritesNothing() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new RequestHistogramText().write(out, List.of(), false);
        assertThat(out.size()).isZero();
    }

    /** The families as the collector built them before, through client_java's snapshot model. */
    private static MetricSnapshots clientJavasModel(List<RequestMetrics.Api> apis) {
        List<HistogramSnapshot> families = new ArrayList<>();
        families.add(family(
                MetricNames.TOTAL_TIME_MS,
                "Request time from receipt until its response is ready to send, ms",
                apis,
                a -> a.totalTimeMs));
        families.add(family(
                MetricNames.REQUEST_QUEUE_TIME_MS,
                "Time a request waited for a request thread, ms",
                apis,
                a -> a.requestQueueTimeMs));
        families.add(family(
                MetricNames.LOCAL_TIME_MS, "Time the handler worked on a request, ms", apis, a -> a.localTimeMs));
        families.add(family(
                MetricNames.REMOTE_TIME_MS, "Time a request waited in a purgatory, ms", apis, a -> a.remoteTimeMs));
        families.add(family(MetricNames.REQUEST_BYTES, "Request sizes, bytes", apis, a -> a.requestBytes));
        families.add(family(MetricNames.RESPONSE_BYTES, "Response sizes, bytes", apis, a -> a.responseBytes));
        families.add(family(
                MetricNames.RESPONSE_SEND_TIME_MS,
                "Time from a response being ready until the socket took its last byte, ms",
                apis,
                a -> a.responseSendTimeMs));
        // the writer's order (client_java sorts families by name) is the order RequestHistogramText keeps
        return new MetricSnapshots(new ArrayList<>(families));
    }

    private static HistogramSnapshot family(
            String name, String help, List<RequestMetrics.Api> apis, Function<RequestMetrics.Api, Histogram> which) {
        HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(name).help(help);
        for (RequestMetrics.Api a : apis) {
            b.dataPoint(which.apply(a).snapshot(Labels.of("request", a.name)));
        }
        return b.build();
    }
}
