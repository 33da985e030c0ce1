package io.varve.http.console;

import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.HttpServer;
import io.varve.http.metrics.TopicTraffic;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * {@code /console/throughput}: bytes in and out per second over the last hour, for the whole broker and per topic,
 * from the same per-topic counters as {@code kafka_server_brokertopicmetrics_bytesin_total} and {@code _bytesout_total}
 * (sampled with the lag, every 15 s).
 */
final class ThroughputPage {
    private final TopicTraffic traffic;
    private final LongSupplier clockMs;
    private final ThroughputHistory history = new ThroughputHistory(14_000);

    ThroughputPage(TopicTraffic traffic, LongSupplier clockMs) {
        this.traffic = traffic;
        this.clockMs = clockMs;
    }

    void routes(HttpServer server) {
        server.route("/console/throughput", this::show);
    }

    void sample() {
        history.add(clockMs.getAsLong(), traffic.byteTotals());
    }

    private HttpResponse show(HttpRequest r) {
        sample();
        StringBuilder b = new StringBuilder("<h1>Throughput</h1>");
        List<String> series = history.series();
        if (series.isEmpty()) {
            b.append("<p id=no-samples>No rate yet: the first rates come one sample period (15 s) after start.</p>");
        }
        // the broker first, then the topics by name
        series.sort((x, y) ->
                x.equals(ThroughputHistory.BROKER) ? -1 : y.equals(ThroughputHistory.BROKER) ? 1 : x.compareTo(y));
        for (String name : series) {
            List<ThroughputHistory.Sample> samples = history.samples(name);
            double[] in = new double[samples.size()];
            double[] out = new double[samples.size()];
            for (int i = 0; i < in.length; i++) {
                in[i] = samples.get(i).bytesInPerSecond();
                out[i] = samples.get(i).bytesOutPerSecond();
            }
            String title = (name.equals(ThroughputHistory.BROKER) ? "Broker" : "Topic " + name)
                    + ": bytes per second (last hour)";
            b.append(Charts.chart(
                    "throughput-" + name,
                    title,
                    Charts.times(samples, ThroughputHistory.Sample::timeMs),
                    new String[] {"in", "out"},
                    new double[][] {in, out}));
        }
        b.append(Charts.script());
        return Layout.page("Throughput", b.toString());
    }
}
