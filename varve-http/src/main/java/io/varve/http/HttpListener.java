package io.varve.http;

import io.varve.http.console.ConsolePages;
import io.varve.http.metrics.NodeMetrics;
import io.varve.http.view.BrokerView;
import io.varve.http.view.ConsoleActions;
import io.varve.http.view.Readiness;
import java.util.List;
import java.util.function.Supplier;

/**
 * A node's HTTP listener ({@code varve.http.listeners}): {@code /metrics}, {@code /health/live} and {@code
 * /health/ready}. Live means the process serves HTTP; ready means {@link Readiness#ready()}, else 503 with the reasons.
 */
public final class HttpListener implements AutoCloseable {
    /** How often the console samples consumer lag for its chart (an hour is 240 samples). */
    static final long LAG_SAMPLE_PERIOD_MS = 15_000;

    private final HttpServer server = new HttpServer();
    private java.util.concurrent.ScheduledExecutorService sampler;

    private HttpListener() {}

    /**
     * Binds {@code endpoints}; {@code readiness} is asked at each {@code /health/ready}. Throws {@link
     * HttpServer.BindFailure} when an endpoint cannot be bound.
     */
    public static HttpListener start(List<HttpEndpoint> endpoints, NodeMetrics metrics, Supplier<Readiness> readiness) {
        return start(endpoints, HttpSecurity.NONE, metrics, readiness);
    }

    /** The same with {@code security}'s TLS and authentication. */
    public static HttpListener start(
            List<HttpEndpoint> endpoints, HttpSecurity security, NodeMetrics metrics, Supplier<Readiness> readiness) {
        HttpListener l = new HttpListener();
        l.server
                .route("/metrics", metrics::scrape)
                .route("/health/live", r -> HttpResponse.json(200, "{\"status\":\"UP\"}"))
                .route("/health/ready", r -> ready(readiness.get()));
        l.server.start(endpoints, security);
        return l;
    }

    /** The same with readiness read from the broker's view, and the console ({@code /console}) over it. */
    public static HttpListener start(
            List<HttpEndpoint> endpoints, NodeMetrics metrics, BrokerView view, ConsoleActions actions) {
        return start(endpoints, HttpSecurity.NONE, metrics, view, actions);
    }

    /**
     * The same, with {@code security}'s TLS for {@code https://} endpoints and its authentication for every request
     * but the health probes.
     */
    public static HttpListener start(
            List<HttpEndpoint> endpoints,
            HttpSecurity security,
            NodeMetrics metrics,
            BrokerView view,
            ConsoleActions actions) {
        HttpListener l = new HttpListener();
        ConsolePages console = new ConsolePages(view, actions, metrics.traffic(), System::currentTimeMillis);
        l.server
                .route("/metrics", metrics::scrape)
                .route("/health/live", r -> HttpResponse.json(200, "{\"status\":\"UP\"}"))
                .route("/health/ready", r -> ready(view.readiness()));
        console.routes(l.server);
        l.server.start(endpoints, security);
        l.sampler = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "varve-console-lag-sampler");
            t.setDaemon(true);
            return t;
        });
        l.sampler.scheduleAtFixedRate(
                () -> {
                    console.sampleTraffic();
                    try {
                        console.sampleLag();
                    } catch (Exception e) {
                        // a coordinator loading or moving: the chart has a gap
                    }
                },
                0,
                LAG_SAMPLE_PERIOD_MS,
                java.util.concurrent.TimeUnit.MILLISECONDS);
        return l;
    }

    static HttpResponse ready(Readiness r) {
        StringBuilder b = new StringBuilder();
        b.append("{\"status\":\"").append(r.ready() ? "UP" : "DOWN").append('"');
        b.append(",\"registered\":").append(r.registered());
        b.append(",\"caught_up_with_metadata\":").append(r.caughtUpWithMetadata());
        b.append(",\"offline_led_partitions\":").append(r.offlineLedPartitions());
        b.append(",\"reasons\":[");
        List<String> reasons = r.reasons();
        for (int i = 0; i < reasons.size(); i++) {
            b.append(i == 0 ? "" : ",")
                    .append('"')
                    .append(Json.escape(reasons.get(i)))
                    .append('"');
        }
        b.append("]}");
        return HttpResponse.json(r.ready() ? 200 : 503, b.toString());
    }

    /** The port of the {@code index}th endpoint. */
    public int boundPort(int index) {
        return server.boundPort(index);
    }

    @Override
    public void close() {
        if (sampler != null) {
            sampler.shutdownNow();
        }
        server.close();
    }
}
