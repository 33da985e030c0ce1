package io.varve.http.metrics;

import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.varve.http.view.BrokerView;
import io.varve.http.view.ClusterView;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Turns the recorders the hot paths feed (per-topic traffic, per-API request histograms, ISR changes, flushes, tiered
 * counters) and the cheap parts of the broker's view (the controller's gauges, purgatory sizes) into metric families
 * at every scrape. Names follow {@link MetricNames}. The families read from every partition and group are computed at
 * most once per refresh interval by {@link NodeStateFamilies}; this collector takes the topics held here from the same
 * computation, so a topic's counters appear and leave with its partitions' series.
 */
public final class BrokerCollector implements MultiCollector {
    private final BrokerView view;
    private final TopicTraffic traffic;
    private final RequestMetrics requests;
    private final ReplicaMetrics replicas;
    private final Histogram logFlushTimeMs;
    private final BusyTime network;
    private final RemoteReadMetrics remoteReads;
    private final LongSupplier nanoClock;
    private final Supplier<NodeStateFamilies.State> nodeState;

    /** What the hot paths record into, read at each scrape. */
    public record Recorders(
            TopicTraffic traffic,
            RequestMetrics requests,
            ReplicaMetrics replicas,
            Histogram logFlushTimeMs,
            BusyTime network,
            RemoteReadMetrics remoteReads) {}

    /** {@code nodeState}: the latest state computed, for the topics this node holds partitions of. */
    BrokerCollector(
            BrokerView view,
            Recorders recorders,
            int requestThreads,
            LongSupplier nanoClock,
            Supplier<NodeStateFamilies.State> nodeState) {
        this.view = view;
        this.traffic = recorders.traffic();
        this.requests = recorders.requests();
        this.replicas = recorders.replicas();
        this.logFlushTimeMs = recorders.logFlushTimeMs();
        this.network = recorders.network();
        this.remoteReads = recorders.remoteReads();
        this.nanoClock = nanoClock;
        this.nodeState = nodeState;
        requests.handlers.threads(requestThreads);
        long now = nanoClock.getAsLong();
        requests.handlers.idleRatioSince(now);
        network.idleRatioSince(now);
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> out = new ArrayList<>();
        topicTraffic(out, nodeState.get());
        requestMetrics(out);
        isrChanges(out);
        controller(out, view.cluster());
        logFlushes(out);
        tieredCounters(out);
        purgatories(out);
        return new MetricSnapshots(out);
    }

    private void topicTraffic(List<MetricSnapshot> out, NodeStateFamilies.State state) {
        traffic.retain(state.topics, state.readAt);
        for (String name : state.topics) {
            traffic.topic(name); // a series from the topic's creation on, as Kafka's topic metrics
        }
        List<TopicTraffic.Topic> topics = new ArrayList<>();
        traffic.topics().forEach(topics::add);
        out.add(topicCounter(
                MetricNames.BYTES_IN, "Bytes of record batches appended, per topic", topics, t -> t.bytesIn.sum()));
        out.add(topicCounter(
                MetricNames.BYTES_OUT, "Bytes of records sent to fetchers, per topic", topics, t -> t.bytesOut.sum()));
        out.add(topicCounter(MetricNames.MESSAGES_IN, "Records appended, per topic", topics, t -> t.messagesIn.sum()));
        out.add(topicCounter(
                MetricNames.TOTAL_PRODUCE_REQUESTS,
                "Partition appends requested by producers, per topic",
                topics,
                t -> t.produceRequests.sum()));
        out.add(topicCounter(
                MetricNames.FAILED_PRODUCE_REQUESTS,
                "Partition appends refused, per topic",
                topics,
                t -> t.failedProduceRequests.sum()));
        out.add(topicCounter(
                MetricNames.TOTAL_FETCH_REQUESTS,
                "Partition reads answered with records, per topic",
                topics,
                t -> t.fetchRequests.sum()));
        CounterSnapshot.Builder checks = CounterSnapshot.builder()
                .name(MetricNames.SCHEMA_VALIDATION_SECONDS)
                .help("Seconds the produce path spent validating records against the schema registry, per topic "
                        + "(0 for a topic that does not validate)");
        for (TopicTraffic.Topic t : topics) {
            checks.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("topic", t.name))
                    .value(t.recordCheckNanos.sum() / 1e9)
                    .build());
        }
        out.add(checks.build());
        out.add(topicCounter(
                MetricNames.REMOTE_FETCH_BYTES,
                "Bytes read from remote storage for fetchers, per topic",
                topics,
                t -> t.remoteFetchBytes.sum()));
    }

    private static CounterSnapshot topicCounter(
            String name, String help, List<TopicTraffic.Topic> topics, ToLongFunction<TopicTraffic.Topic> value) {
        CounterSnapshot.Builder b = CounterSnapshot.builder().name(name).help(help);
        for (TopicTraffic.Topic t : topics) {
            b.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("topic", t.name))
                    .value(value.applyAsLong(t))
                    .build());
        }
        return b.build();
    }

    private void requestMetrics(List<MetricSnapshot> out) {
        // An API's series appear with its first request: ~70 APIs with seven histograms each made every scrape of an
        // idle broker some 600 KiB, most of it zeros.
        List<RequestMetrics.Api> apis = requests.active();
        CounterSnapshot.Builder count =
                CounterSnapshot.builder().name(MetricNames.REQUESTS).help("Requests received, per API and version");
        CounterSnapshot.Builder errors = CounterSnapshot.builder()
                .name(MetricNames.REQUEST_ERRORS)
                .help("Requests whose handler failed, per API");
        for (RequestMetrics.Api a : apis) {
            for (int v = 0; v < RequestMetrics.MAX_VERSIONS; v++) {
                long n = a.requestsByVersion[v].sum();
                if (n > 0) {
                    count.dataPoint(CounterDataPointSnapshot.builder()
                            .labels(Labels.of("request", a.name, "version", Integer.toString(v)))
                            .value(n)
                            .build());
                }
            }
            errors.dataPoint(CounterDataPointSnapshot.builder()
                    .labels(Labels.of("request", a.name))
                    .value(a.errors.sum())
                    .build());
        }
        out.add(count.build());
        out.add(errors.build());
        // the seven per-API histograms are written by RequestHistogramText, straight into the scrape's bytes
        long now = nanoClock.getAsLong();
        out.add(gauge(
                MetricNames.REQUEST_HANDLER_IDLE,
                "Fraction of time the request threads were idle since the previous scrape",
                requests.handlers.idleRatioSince(now)));
        out.add(gauge(
                MetricNames.NETWORK_PROCESSOR_IDLE,
                "Fraction of time the network threads waited for I/O since the previous scrape",
                network.idleRatioSince(now)));
    }

    private void isrChanges(List<MetricSnapshot> out) {
        out.add(counter(
                MetricNames.ISR_SHRINKS, "ISR shrinks made by this broker as leader", replicas.isrShrinks.sum()));
        out.add(counter(
                MetricNames.ISR_EXPANDS, "ISR expansions made by this broker as leader", replicas.isrExpands.sum()));
    }

    private static void controller(List<MetricSnapshot> out, ClusterView c) {
        out.add(gauge(
                MetricNames.ACTIVE_CONTROLLER,
                "1 on the active controller, 0 elsewhere",
                c.activeController() ? 1 : 0));
        out.add(gauge(MetricNames.OFFLINE_PARTITIONS, "Partitions without a leader", c.offlinePartitions()));
        out.add(gauge(MetricNames.GLOBAL_TOPICS, "Topics in the cluster", c.topics()));
        out.add(gauge(MetricNames.GLOBAL_PARTITIONS, "Partitions in the cluster", c.partitions()));
        out.add(gauge(
                MetricNames.ACTIVE_BROKERS, "Registered brokers that are not fenced", c.brokers() - c.fencedBrokers()));
        out.add(gauge(MetricNames.FENCED_BROKERS, "Registered brokers that are fenced", c.fencedBrokers()));
        out.add(gauge(
                MetricNames.METADATA_OFFSET, "Offset of the metadata image this node applied", c.metadataOffset()));
    }

    private void logFlushes(List<MetricSnapshot> out) {
        out.add(HistogramSnapshot.builder()
                .name(MetricNames.LOG_FLUSH_TIME_MS)
                .help("Time to flush a partition log to disk, ms")
                .dataPoint(logFlushTimeMs.snapshot(Labels.EMPTY))
                .build());
    }

    private void tieredCounters(List<MetricSnapshot> out) {
        Map<String, Long> counters = view.tieredCounters();
        out.add(counter(
                MetricNames.REMOTE_COPY_BYTES,
                "Bytes uploaded to remote storage",
                counters.getOrDefault("bytesCopied", 0L)));
        out.add(counter(
                MetricNames.REMOTE_COPY_SEGMENTS,
                "Segments uploaded to remote storage",
                counters.getOrDefault("segmentsCopied", 0L)));
        out.add(counter(
                MetricNames.REMOTE_DELETE_SEGMENTS,
                "Segments deleted from remote storage",
                counters.getOrDefault("segmentsDeleted", 0L)));
        out.add(counter(
                MetricNames.REMOTE_COPY_ERRORS, "Upload runs that failed", counters.getOrDefault("failedRuns", 0L)));
        out.add(HistogramSnapshot.builder()
                .name(MetricNames.REMOTE_READ_TIME_MS)
                .help("Time of a read from remote storage, queueing for a reader thread included, ms")
                .dataPoint(remoteReads.readTimeMs.snapshot(Labels.EMPTY))
                .build());
        long lookups = remoteReads.chunkLookups();
        long misses = remoteReads.chunkMisses();
        out.add(counter(MetricNames.REMOTE_CHUNK_LOOKUPS, "Chunks remote readers asked the chunk cache for", lookups));
        out.add(counter(MetricNames.REMOTE_CHUNK_MISSES, "Chunk lookups that fetched from remote storage", misses));
        out.add(gauge(
                MetricNames.REMOTE_CHUNK_HIT_RATIO,
                "Fraction of chunk lookups served from the cache since start (1 before the first lookup)",
                lookups == 0 ? 1.0 : (double) (lookups - misses) / lookups));
    }

    private void purgatories(List<MetricSnapshot> out) {
        GaugeSnapshot.Builder b =
                GaugeSnapshot.builder().name(MetricNames.PURGATORY_SIZE).help("Operations waiting in the purgatory");
        view.purgatorySizes()
                .forEach((op, size) -> b.dataPoint(GaugeDataPointSnapshot.builder()
                        .labels(Labels.of("delayedOperation", op))
                        .value(size)
                        .build()));
        out.add(b.build());
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return NodeStateFamilies.gauge(name, help, value);
    }

    private static CounterSnapshot counter(String name, String help, long value) {
        return CounterSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(CounterDataPointSnapshot.builder().value(value).build())
                .build();
    }
}
