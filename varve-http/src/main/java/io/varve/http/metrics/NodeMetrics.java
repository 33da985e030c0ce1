package io.varve.http.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.varve.http.HttpRequest;
import io.varve.http.HttpResponse;
import io.varve.http.clientmetrics.ClientTelemetryStore;
import io.varve.http.view.BrokerView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A node's metrics: the recorders its hot paths write to, and a registry that adds the JVM and process collectors and
 * the collector over the broker's view. One per node (tests run several nodes in one JVM, each with its own).
 *
 * <p>A scrape writes the registry's families (computed at every scrape) into one reused buffer, then appends the
 * families of the node's per-partition and per-group state, which {@link NodeStateFamilies} computes and renders at
 * most once per refresh interval ({@code varve.metrics.refresh.ms}).
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

    /** Registered at the first scrape: the JVM collectors take some 100 ms to set up, start-up must not. */
    private volatile boolean jvmRegistered;

    /** How long the families of the node's state and the JVM's thread families are shown before being computed again. */
    private volatile long refreshMs = DEFAULT_REFRESH_MS;

    public static final long DEFAULT_REFRESH_MS = 10_000;

    private static final byte[] NO_BYTES = new byte[0];

    private volatile NodeStateFamilies nodeState;
    /** The registry's part of a scrape, reused by every scrape (scrapes take turns on it). */
    private final Buffer buffer = new Buffer();

    private final RequestHistogramText requestHistograms = new RequestHistogramText();

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private final LongAdder scrapes = new LongAdder();
    private final LongAdder scrapeCpuNanos = new LongAdder();

    public NodeMetrics() {
        registry.register(clientTelemetry);
        registry.register(() -> new MetricSnapshots(
                counter(MetricNames.SCRAPES, "Scrapes of /metrics answered (up to the previous one)", scrapes.sum()),
                counter(
                        MetricNames.SCRAPE_CPU_SECONDS,
                        "CPU seconds the scraping threads spent computing and writing /metrics (up to the previous "
                                + "scrape): what scraping costs the broker",
                        scrapeCpuNanos.sum() / 1e9)));
    }

    private static CounterSnapshot counter(String name, String help, double value) {
        return CounterSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(CounterDataPointSnapshot.builder().value(value).build())
                .build();
    }

    /** This thread's CPU time, or -1 where the JVM cannot tell. */
    private static long threadCpuNanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }

    private void registerJvmCollectorsOnce() {
        if (!jvmRegistered) {
            synchronized (this) {
                if (!jvmRegistered) {
                    JvmCollectors.register(registry, refreshMs, System::nanoTime);
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

    /**
     * Adds the families read from {@code view}; call once, when the broker is up. Those read from every partition and
     * group (and the JVM's thread families) are computed at most once per {@code refreshMs}; 0 computes them at every
     * scrape. A scrape waits at most {@code lagTimeoutMs} for the coordinators' consumer lag.
     */
    public void attach(BrokerView view, int requestThreads, long lagTimeoutMs, long refreshMs) {
        if (this.view != null) {
            throw new IllegalStateException("a view is attached already");
        }
        this.view = view;
        this.refreshMs = refreshMs;
        NodeStateFamilies state =
                new NodeStateFamilies(view, traffic::nextGeneration, lagTimeoutMs, refreshMs, System::nanoTime);
        registry.register(new BrokerCollector(
                view,
                new BrokerCollector.Recorders(traffic, requests, replicas, logFlushTimeMs, network, remoteReads),
                requestThreads,
                System::nanoTime,
                state::current));
        this.nodeState = state;
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
        long cpuAtStart = threadCpuNanos();
        try {
            return scrapeNow(request);
        } finally {
            long cpuAtEnd = threadCpuNanos();
            if (cpuAtStart >= 0 && cpuAtEnd >= cpuAtStart) {
                scrapeCpuNanos.add(cpuAtEnd - cpuAtStart);
            }
            scrapes.increment();
        }
    }

    private HttpResponse scrapeNow(HttpRequest request) throws IOException {
        registerJvmCollectorsOnce();
        ExpositionFormats formats = this.formats;
        if (formats == null) {
            formats = this.formats = ExpositionFormats.init();
        }
        boolean openMetrics = request.accept().contains("application/openmetrics-text");
        ExpositionFormatWriter writer =
                openMetrics ? formats.getOpenMetricsTextFormatWriter() : formats.getPrometheusTextFormatWriter();
        NodeStateFamilies state = nodeState;
        // first: the state's computation also decides which topics' counters the registry's part shows
        byte[] stateBytes = state == null ? NO_BYTES : state.current().rendered(writer, openMetrics);
        byte[] body;
        synchronized (buffer) {
            buffer.reset();
            writer.write(buffer, registry.scrape());
            if (openMetrics) {
                buffer.dropEof();
            }
            requestHistograms.write(buffer, requests.active(), openMetrics);
            body = buffer.joined(stateBytes, openMetrics);
        }
        return new HttpResponse(200, writer.getContentType(), body);
    }

    /** A reusable buffer that joins the registry's part of a scrape with the histograms and the state's part. */
    private static final class Buffer extends ByteArrayOutputStream {
        Buffer() {
            super(64 * 1024);
        }

        /** Takes OpenMetrics' end marker off what the writer wrote: the scrape's other parts go before it. */
        void dropEof() {
            count = NodeStateFamilies.lengthWithoutEof(buf, count);
        }

        /** This buffer, then {@code tail}, then for OpenMetrics the end marker. */
        byte[] joined(byte[] tail, boolean openMetrics) {
            byte[] eof = openMetrics ? NodeStateFamilies.OPEN_METRICS_EOF : NO_BYTES;
            byte[] out = new byte[count + tail.length + eof.length];
            System.arraycopy(buf, 0, out, 0, count);
            System.arraycopy(tail, 0, out, count, tail.length);
            System.arraycopy(eof, 0, out, count + tail.length, eof.length);
            return out;
        }
    }
}
