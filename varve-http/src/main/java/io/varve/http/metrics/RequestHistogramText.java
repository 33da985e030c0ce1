package io.varve.http.metrics;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Writes the seven per-API request histograms ({@code kafka_network_requestmetrics_totaltimems} …) straight into a
 * scrape's bytes instead of through client_java's snapshot model: they are most of what a scrape of a busy broker
 * carries (some 130 lines per API), and every line's name and labels ({@code …_bucket{request="Produce",le="2.5"} })
 * never change, so they are encoded once per API and kept, and a scrape only writes the counts as ASCII digits. The
 * text is byte for byte what client_java's text and OpenMetrics writers make of the same histograms
 * ({@code RequestHistogramTextTest} compares them); only where they stand in the scrape differs (after the registry's
 * families, which nothing reading the formats depends on).
 */
final class RequestHistogramText {
    private record Family(String name, String help, Function<RequestMetrics.Api, Histogram> histogram) {}

    /** Sorted by name, as client_java orders a scrape's families. */
    private static final List<Family> FAMILIES = java.util.stream.Stream.of(
                    new Family(
                            MetricNames.TOTAL_TIME_MS,
                            "Request time from receipt until its response is ready to send, ms",
                            a -> a.totalTimeMs),
                    new Family(
                            MetricNames.REQUEST_QUEUE_TIME_MS,
                            "Time a request waited for a request thread, ms",
                            a -> a.requestQueueTimeMs),
                    new Family(
                            MetricNames.LOCAL_TIME_MS, "Time the handler worked on a request, ms", a -> a.localTimeMs),
                    new Family(
                            MetricNames.REMOTE_TIME_MS,
                            "Time a request waited in a purgatory, ms",
                            a -> a.remoteTimeMs),
                    new Family(MetricNames.REQUEST_BYTES, "Request sizes, bytes", a -> a.requestBytes),
                    new Family(MetricNames.RESPONSE_BYTES, "Response sizes, bytes", a -> a.responseBytes),
                    new Family(
                            MetricNames.RESPONSE_SEND_TIME_MS,
                            "Time from a response being ready until the socket took its last byte, ms",
                            a -> a.responseSendTimeMs))
            .sorted(java.util.Comparator.comparing(Family::name))
            .toList();

    /** Per family: its HELP and TYPE lines, in the text format's order and in OpenMetrics' (TYPE first). */
    private final byte[][] textHeaders = new byte[FAMILIES.size()][];

    private final byte[][] openMetricsHeaders = new byte[FAMILIES.size()][];
    /** Per API, per family: the start of each bucket line, then of the count and the sum line. */
    private final Map<RequestMetrics.Api, byte[][][]> lineStarts = new ConcurrentHashMap<>();

    private final byte[] digits = new byte[20];

    RequestHistogramText() {
        for (int f = 0; f < FAMILIES.size(); f++) {
            Family family = FAMILIES.get(f);
            String help = "# HELP " + family.name + " " + family.help + "\n";
            String type = "# TYPE " + family.name + " histogram\n";
            textHeaders[f] = ascii(help + type);
            openMetricsHeaders[f] = ascii(type + help);
        }
    }

    /**
     * Appends the histograms of {@code apis} (sorted by name, as client_java sorts data points) to {@code out}; nothing
     * when there are none. Not for concurrent use: scrapes take turns on their buffer.
     */
    void write(ByteArrayOutputStream out, List<RequestMetrics.Api> apis, boolean openMetrics) {
        if (apis.isEmpty()) {
            return;
        }
        for (int f = 0; f < FAMILIES.size(); f++) {
            out.writeBytes(openMetrics ? openMetricsHeaders[f] : textHeaders[f]);
            for (RequestMetrics.Api api : apis) {
                byte[][] starts = lineStarts.computeIfAbsent(api, RequestHistogramText::encode)[f];
                Histogram h = FAMILIES.get(f).histogram.apply(api);
                int buckets = h.buckets();
                long cumulative = 0;
                for (int i = 0; i < buckets; i++) {
                    cumulative += h.bucketCount(i);
                    out.writeBytes(starts[i]);
                    writeLong(out, cumulative);
                }
                out.writeBytes(starts[buckets]);
                writeLong(out, cumulative);
                out.writeBytes(starts[buckets + 1]);
                out.writeBytes(ascii(Double.toString(h.sum())));
                out.write('\n');
            }
        }
    }

    private static byte[][][] encode(RequestMetrics.Api api) {
        if (!api.name.matches("[A-Za-z0-9]+")) {
            throw new IllegalArgumentException("an API name the text format would have to escape: " + api.name);
        }
        byte[][][] perFamily = new byte[FAMILIES.size()][][];
        for (int f = 0; f < FAMILIES.size(); f++) {
            Family family = FAMILIES.get(f);
            Histogram h = family.histogram.apply(api);
            byte[][] starts = new byte[h.buckets() + 2][];
            String labels = "{request=\"" + api.name + "\"";
            for (int i = 0; i < h.buckets(); i++) {
                starts[i] = ascii(family.name + "_bucket" + labels + ",le=\"" + bound(h.upperBound(i)) + "\"} ");
            }
            starts[h.buckets()] = ascii(family.name + "_count" + labels + "} ");
            starts[h.buckets() + 1] = ascii(family.name + "_sum" + labels + "} ");
            perFamily[f] = starts;
        }
        return perFamily;
    }

    /** A bucket bound as the exposition formats write it: {@code +Inf}, else Java's shortest decimal. */
    private static String bound(double value) {
        return value == Double.POSITIVE_INFINITY ? "+Inf" : Double.toString(value);
    }

    /** {@code value} (at least 0) in decimal and a newline, without allocating. */
    private void writeLong(ByteArrayOutputStream out, long value) {
        int i = digits.length;
        do {
            digits[--i] = (byte) ('0' + value % 10);
            value /= 10;
        } while (value > 0);
        out.write(digits, i, digits.length - i);
        out.write('\n');
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
