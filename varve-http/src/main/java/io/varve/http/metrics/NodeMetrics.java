package io.varve.http.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.clientmetrics.ClientTelemetryStore;
import io.varve.http.view.BrokerView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/**
 * A node's metrics: the recorders its hot paths write to, and a registry that adds the JVM and process collectors and
 * the collector over the broker's view. One per node (tests run several nodes in one JVM, each with its own).
 */
public final class NodeMetrics {
    private final TopicTraffic traffic = new TopicTraffic();
    private final RequestMetrics requests = new RequestMetrics();
    private final ReplicaMetrics replicas = new ReplicaMetrics();
    private final Histogram logFlushTimeMs = new Histogram(Histogram.LATENCY_MS);
    private final BusyTime network = new BusyTime(0);
    private final RemoteReadMetrics remoteReads = new RemoteReadMetrics();
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private volatile ExpositionFormats formats;

    private final ClientTelemetryStore clientTelemetry = new ClientTelemetryStore(System::currentTimeMillis);

    /** Registered at the first scrape: the JVM collectors take hundreds of milliseconds to set up, start-up must not. */
    private volatile boolean jvmRegistered;

    public NodeMetrics() {
        registry.register(clientTelemetry);
    }

    private void registerJvmCollectorsOnce() {
        if (!jvmRegistered) {
            synchronized (this) {
                if (!jvmRegistered) {
                    JvmMetrics.builder().register(registry);
                    jvmRegistered = true;
                }
            }
        }
    }

    /** What clients push (KIP-714), shown at each scrape. */
    public ClientTelemetryStore clientTelemetry() {
        return clientTelemetry;
    }

    public TopicTraffic traffic() {
        return traffic;
    }

    public RequestMetrics requests() {
        return requests;
    }

    /** What the replica layer reports ISR changes to. */
    public ReplicaMetrics replicas() {
        return replicas;
    }

    /** Where the log layer reports the time of each flush. */
    public Histogram logFlushTimeMs() {
        return logFlushTimeMs;
    }

    /** Where the network threads report the time they work (the rest of their time they wait for I/O). */
    public BusyTime network() {
        return network;
    }

    /** Where remote reads report their time and the chunk cache its counters. */
    public RemoteReadMetrics remoteReads() {
        return remoteReads;
    }

    private volatile BrokerView view;

    /** Adds the client quota families ({@code kafka_server_produce_throttle_time} …) read from {@code source}. */
    public void clientQuotas(ClientQuotaSource source) {
        registry.register(new ClientQuotaCollector(source));
    }

    /** Adds the {@code kafka_server_fetchsessioncache_*} families read from {@code stats}. */
    public void fetchSessions(FetchSessionStats stats) {
        registry.register(new FetchSessionCollector(stats));
    }

    /** Adds the families read from {@code view} at each scrape; call once, when the broker is up. */
    public void attach(BrokerView view, int requestThreads, long lagTimeoutMs) {
        if (this.view != null) {
            throw new IllegalStateException("a view is attached already");
        }
        this.view = view;
        registry.register(new BrokerCollector(
                view,
                new BrokerCollector.Recorders(traffic, requests, replicas, logFlushTimeMs, network, remoteReads),
                requestThreads,
                System::nanoTime,
                lagTimeoutMs));
    }

    /** The attached view, or null before {@link #attach}. */
    public BrokerView view() {
        return view;
    }

    /**
     * {@code /metrics}: the Prometheus text format 0.0.4, or OpenMetrics 1.0 when the Accept header asks for {@code
     * application/openmetrics-text}.
     */
    public HttpResponse scrape(HttpRequest request) throws IOException {
        registerJvmCollectorsOnce();
        ExpositionFormats formats = this.formats;
        if (formats == null) {
            formats = this.formats = ExpositionFormats.init();
        }
        ExpositionFormatWriter writer = request.accept().contains("application/openmetrics-text")
                ? formats.getOpenMetricsTextFormatWriter()
                : formats.getPrometheusTextFormatWriter();
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
        writer.write(out, registry.scrape());
        return new HttpResponse(200, writer.getContentType(), out.toByteArray());
    }
}
