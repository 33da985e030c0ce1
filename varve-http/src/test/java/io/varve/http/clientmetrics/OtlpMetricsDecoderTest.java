package io.varve.http.clientmetrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.AnyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.common.v1.KeyValue;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Gauge;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Histogram;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Metric;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.MetricsData;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import org.apache.kafka.shaded.io.opentelemetry.proto.metrics.v1.Sum;
import org.junit.jupiter.api.Test;

/** Payloads encoded by the OTLP classes Kafka's clients use (shaded in kafka-clients), decoded by ours. */
class OtlpMetricsDecoderTest {
    private static KeyValue attr(String key, String value) {
        return KeyValue.newBuilder()
                .setKey(key)
                .setValue(AnyValue.newBuilder().setStringValue(value))
                .build();
    }

    private static ByteBuffer payload(Metric... metrics) {
        return ByteBuffer.wrap(MetricsData.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder().addAllMetrics(Arrays.asList(metrics))))
                .build()
                .toByteArray());
    }

    @Test
    void decodesGaugesAndSumsWithTheirAttributesDoubleAndIntValuesAndMonotonicity() {
        Metric gauge = Metric.newBuilder()
                .setName("org.apache.kafka.producer.buffer.available.bytes")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder()
                                .setTimeUnixNano(1)
                                .setAsDouble(1.5)
                                .addAttributes(attr("node.id", "3"))))
                .build();
        Metric sum = Metric.newBuilder()
                .setName("org.apache.kafka.producer.record.send.total")
                .setSum(Sum.newBuilder()
                        .setIsMonotonic(true)
                        .addDataPoints(NumberDataPoint.newBuilder().setAsInt(42)))
                .build();
        List<OtlpMetricsDecoder.Point> points = OtlpMetricsDecoder.decode(payload(gauge, sum));
        assertThat(points)
                .containsExactly(
                        new OtlpMetricsDecoder.Point(
                                "org.apache.kafka.producer.buffer.available.bytes", Map.of("node.id", "3"), 1.5, false),
                        new OtlpMetricsDecoder.Point(
                                "org.apache.kafka.producer.record.send.total", Map.of(), 42, true));
    }

    @Test
    void histogramsAreSkippedAndTheMetricsAroundThemKept() {
        Metric histogram = Metric.newBuilder()
                .setName("h")
                .setHistogram(Histogram.newBuilder()
                        .addDataPoints(HistogramDataPoint.newBuilder().setCount(3)))
                .build();
        Metric gauge = Metric.newBuilder()
                .setName("g")
                .setGauge(Gauge.newBuilder()
                        .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(2)))
                .build();
        assertThat(OtlpMetricsDecoder.decode(payload(histogram, gauge)))
                .extracting(OtlpMetricsDecoder.Point::metric)
                .containsExactly("g");
    }

    @Test
    void truncatedOrGarbledBytesAreRefusedNotMisread() {
        byte[] good = payload(Metric.newBuilder()
                        .setName("g")
                        .setGauge(Gauge.newBuilder()
                                .addDataPoints(NumberDataPoint.newBuilder().setAsDouble(2)))
                        .build())
                .array();
        assertThatThrownBy(() -> OtlpMetricsDecoder.decode(ByteBuffer.wrap(Arrays.copyOf(good, good.length - 3))))
                .isInstanceOf(OtlpMetricsDecoder.MalformedException.class);
        assertThatThrownBy(() -> OtlpMetricsDecoder.decode(ByteBuffer.wrap(new byte[] {0x0a, (byte) 0xff})))
                .isInstanceOf(OtlpMetricsDecoder.MalformedException.class);
        assertThat(OtlpMetricsDecoder.decode(ByteBuffer.allocate(0))).isEmpty();
    }
}
