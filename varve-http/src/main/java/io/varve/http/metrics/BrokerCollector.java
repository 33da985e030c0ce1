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
import io.varve.http.view.CoordinatorView;
import io.varve.http.view.GroupLag;
import io.varve.http.view.PartitionView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the recorders and the broker's views into metric families at scrape time. Names follow {@link MetricNames}.
 * A scrape waits at most {@code lagTimeoutMs} for the consumer lag; without it the lag families are left out of that
 * scrape rather than the scrape failing.
 */
public final class BrokerCollector implements MultiCollector {
    private static final Logger log = LoggerFactory.getLogger(BrokerCollector.class);

    private final BrokerView view;
    private final TopicTraffic traffic;
    private final RequestMetrics requests;
    private final ReplicaMetrics replicas;
    private final Histogram logFlushTimeMs;
    private final BusyTime network;
    private final RemoteReadMetrics remoteReads;
    private final LongSupplier nanoClock;
    private final long lagTimeoutMs;

    /** What the hot paths record into, read at each scrape. */
    public record Recorders(
            TopicTraffic traffic,
            RequestMetrics requests,
            ReplicaMetrics replicas,
            Histogram logFlushTimeMs,
            BusyTime network,
            RemoteReadMetrics remoteReads) {}

    public BrokerCollector(
            BrokerView view, Recorders recorders, int requestThreads, LongSupplier nanoClock, long lagTimeoutMs) {
        this.view = view;
        this.traffic = recorders.traffic();
        this.requests = recorders.requests();
        this.replicas = recorders.replicas();
        this.logFlushTimeMs = recorders.logFlushTimeMs();
        this.network = recorders.network();
        this.remoteReads = recorders.remoteReads();
        this.nanoClock = nanoClock;
        this.lagTimeoutMs = lagTimeoutMs;
        requests.handlers.threads(requestThreads);
        long now = nanoClock.getAsLong();
        requests.handlers.idleRatioSince(now);
        network.idleRatioSince(now);
    }

    @Override
    public MetricSnapshots collect() {
        List<MetricSnapshot> out = new ArrayList<>();
        List<PartitionView> partitions = view.partitions();
        topicTraffic(out, partitions);
        requestMetrics(out);
        replicaManager(out, partitions);
        controller(out, view.cluster());
        logs(out, partitions);
        tiered(out, partitions);
        purgatories(out);
        coordinators(out, view.coordinators());
        consumerLag(out);
        return new MetricSnapshots(out);
    }

    private void topicTraffic(List<MetricSnapshot> out, List<PartitionView> partitions) {
        Set<String> existing = new HashSet<>();
        for (PartitionView p : partitions) {
            existing.add(p.topic());
        }
        traffic.retain(existing);
        for (String name : existing) {
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
        List<RequestMetrics.Api> apis =
                requests.apis().stream().filter(a -> a.requests() > 0).toList();
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
        out.add(requestHistogram(
                MetricNames.TOTAL_TIME_MS,
                "Request time from receipt until its response is ready to send, ms",
                apis,
                a -> a.totalTimeMs));
        out.add(requestHistogram(
                MetricNames.REQUEST_QUEUE_TIME_MS,
                "Time a request waited for a request thread, ms",
                apis,
                a -> a.requestQueueTimeMs));
        out.add(requestHistogram(
                MetricNames.LOCAL_TIME_MS, "Time the handler worked on a request, ms", apis, a -> a.localTimeMs));
        out.add(requestHistogram(
                MetricNames.REMOTE_TIME_MS, "Time a request waited in a purgatory, ms", apis, a -> a.remoteTimeMs));
        out.add(requestHistogram(MetricNames.REQUEST_BYTES, "Request sizes, bytes", apis, a -> a.requestBytes));
        out.add(requestHistogram(MetricNames.RESPONSE_BYTES, "Response sizes, bytes", apis, a -> a.responseBytes));
        out.add(requestHistogram(
                MetricNames.RESPONSE_SEND_TIME_MS,
                "Time from a response being ready until the socket took its last byte, ms",
                apis,
                a -> a.responseSendTimeMs));
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

    private static HistogramSnapshot requestHistogram(
            String name, String help, List<RequestMetrics.Api> apis, Function<RequestMetrics.Api, Histogram> which) {
        HistogramSnapshot.Builder b = HistogramSnapshot.builder().name(name).help(help);
        for (RequestMetrics.Api a : apis) {
            b.dataPoint(which.apply(a).snapshot(Labels.of("request", a.name)));
        }
        return b.build();
    }

    private void replicaManager(List<MetricSnapshot> out, List<PartitionView> partitions) {
        int leaders = 0;
        int under = 0;
        int underMin = 0;
        int atMin = 0;
        for (PartitionView p : partitions) {
            leaders += p.leader() ? 1 : 0;
            under += p.underReplicated() ? 1 : 0;
            underMin += p.underMinIsr() ? 1 : 0;
            atMin += p.atMinIsr() ? 1 : 0;
        }
        out.add(gauge(MetricNames.PARTITION_COUNT, "Partitions this broker holds a replica of", partitions.size()));
        out.add(gauge(MetricNames.LEADER_COUNT, "Partitions this broker leads", leaders));
        out.add(gauge(MetricNames.UNDER_REPLICATED, "Led partitions whose ISR is smaller than the replica set", under));
        out.add(gauge(MetricNames.UNDER_MIN_ISR, "Led partitions whose ISR is below min.insync.replicas", underMin));
        out.add(gauge(MetricNames.AT_MIN_ISR, "Led partitions whose ISR is exactly min.insync.replicas", atMin));
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

    private void logs(List<MetricSnapshot> out, List<PartitionView> partitions) {
        out.add(HistogramSnapshot.builder()
                .name(MetricNames.LOG_FLUSH_TIME_MS)
                .help("Time to flush a partition log to disk, ms")
                .dataPoint(logFlushTimeMs.snapshot(Labels.EMPTY))
                .build());
        out.add(partitionGauge(
                MetricNames.LOG_SIZE, "Bytes of the partition's local log", partitions, PartitionView::sizeBytes));
        out.add(partitionGauge(
                MetricNames.LOG_START_OFFSET,
                "The partition's log start offset",
                partitions,
                PartitionView::logStartOffset));
        out.add(partitionGauge(
                MetricNames.LOG_END_OFFSET, "The partition's log end offset", partitions, PartitionView::logEndOffset));
        out.add(partitionGauge(
                MetricNames.LOG_SEGMENTS,
                "Local segments of the partition's log",
                partitions,
                PartitionView::segments));
        out.add(partitionGauge(
                MetricNames.PARTITION_LATEST_OFFSET,
                "The high watermark: the offset a consumer can read to",
                partitions,
                PartitionView::highWatermark));
        out.add(partitionGauge(
                MetricNames.PARTITION_EARLIEST_OFFSET,
                "The log start offset",
                partitions,
                PartitionView::logStartOffset));
    }

    private void tiered(List<MetricSnapshot> out, List<PartitionView> partitions) {
        out.add(partitionGauge(
                MetricNames.REMOTE_LOG_SIZE,
                "Bytes of the partition in remote storage",
                partitions,
                PartitionView::remoteSizeBytes));
        out.add(partitionGauge(
                MetricNames.REMOTE_COPY_LAG_BYTES,
                "Bytes of rolled segments not uploaded yet",
                partitions,
                PartitionView::uploadLagBytes));
        out.add(partitionGauge(
                MetricNames.REMOTE_COPY_LAG_SEGMENTS,
                "Rolled segments not uploaded yet",
                partitions,
                PartitionView::uploadLagSegments));
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

    private static void coordinators(List<MetricSnapshot> out, CoordinatorView c) {
        out.add(stateGauge(MetricNames.GROUPS, "Groups coordinated here, by state", c.groupsByState()));
        out.add(gauge(
                MetricNames.GROUP_SHARDS, "__consumer_offsets partitions this node coordinates", c.groupShards()));
        out.add(stateGauge(
                MetricNames.TRANSACTIONS, "Transactional ids coordinated here, by state", c.transactionsByState()));
        out.add(gauge(
                MetricNames.TXN_SHARDS, "__transaction_state partitions this node coordinates", c.transactionShards()));
    }

    private static GaugeSnapshot stateGauge(String name, String help, Map<String, Integer> byState) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        byState.forEach((state, n) -> b.dataPoint(GaugeDataPointSnapshot.builder()
                .labels(Labels.of("state", state))
                .value(n)
                .build()));
        return b.build();
    }

    private void consumerLag(List<MetricSnapshot> out) {
        List<GroupLag> lags;
        try {
            lags = view.consumerLag().get(lagTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        } catch (Exception e) {
            log.debug("Consumer lag left out of this scrape: {}", e.toString());
            return;
        }
        String cluster = view.clusterId();
        GaugeSnapshot.Builder lag = GaugeSnapshot.builder()
                .name(MetricNames.GROUP_LAG)
                .help("Log end offset minus the group's committed offset, per partition");
        GaugeSnapshot.Builder lagSeconds = GaugeSnapshot.builder()
                .name(MetricNames.GROUP_LAG_SECONDS)
                .help("Age of the first record the group has not consumed, per partition, seconds");
        GaugeSnapshot.Builder offset = GaugeSnapshot.builder()
                .name(MetricNames.GROUP_OFFSET)
                .help("The group's committed offset, per partition");
        Map<String, double[]> maxByGroup = new HashMap<>();
        Map<String, Long> sumByGroup = new HashMap<>();
        Map<List<String>, Long> sumByGroupTopic = new HashMap<>();
        for (GroupLag l : lags) {
            Labels labels = Labels.of(
                    "cluster_name",
                    cluster,
                    "group",
                    l.group(),
                    "partition",
                    Integer.toString(l.partition()),
                    "topic",
                    l.topic());
            offset.dataPoint(point(labels, l.committedOffset()));
            if (l.lag() < 0) {
                continue; // the partition is not led here: its end is unknown
            }
            lag.dataPoint(point(labels, l.lag()));
            lagSeconds.dataPoint(point(labels, l.lagSeconds()));
            double[] max = maxByGroup.computeIfAbsent(l.group(), g -> new double[2]);
            max[0] = Math.max(max[0], l.lag());
            max[1] = Math.max(max[1], l.lagSeconds());
            sumByGroup.merge(l.group(), l.lag(), Long::sum);
            sumByGroupTopic.merge(List.of(l.group(), l.topic()), l.lag(), Long::sum);
        }
        GaugeSnapshot.Builder maxLag =
                GaugeSnapshot.builder().name(MetricNames.GROUP_MAX_LAG).help("The largest partition lag of the group");
        GaugeSnapshot.Builder maxLagSeconds = GaugeSnapshot.builder()
                .name(MetricNames.GROUP_MAX_LAG_SECONDS)
                .help("The largest partition time lag of the group, seconds");
        GaugeSnapshot.Builder sumLag = GaugeSnapshot.builder()
                .name(MetricNames.GROUP_SUM_LAG)
                .help("The group's lag summed over its partitions");
        GaugeSnapshot.Builder topicSumLag = GaugeSnapshot.builder()
                .name(MetricNames.GROUP_TOPIC_SUM_LAG)
                .help("The group's lag summed over the partitions of one topic");
        maxByGroup.forEach((group, max) -> {
            Labels labels = Labels.of("cluster_name", cluster, "group", group);
            maxLag.dataPoint(point(labels, max[0]));
            maxLagSeconds.dataPoint(point(labels, max[1]));
        });
        sumByGroup.forEach(
                (group, sum) -> sumLag.dataPoint(point(Labels.of("cluster_name", cluster, "group", group), sum)));
        sumByGroupTopic.forEach((key, sum) -> topicSumLag.dataPoint(
                point(Labels.of("cluster_name", cluster, "group", key.get(0), "topic", key.get(1)), sum)));
        out.add(lag.build());
        out.add(lagSeconds.build());
        out.add(offset.build());
        out.add(maxLag.build());
        out.add(maxLagSeconds.build());
        out.add(sumLag.build());
        out.add(topicSumLag.build());
    }

    private static GaugeDataPointSnapshot point(Labels labels, double value) {
        return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    private static GaugeSnapshot partitionGauge(
            String name, String help, List<PartitionView> partitions, ToDoubleFunction<PartitionView> value) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        for (PartitionView p : partitions) {
            b.dataPoint(point(
                    Labels.of("partition", Integer.toString(p.partition()), "topic", p.topic()),
                    value.applyAsDouble(p)));
        }
        return b.build();
    }

    private static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(point(Labels.EMPTY, value))
                .build();
    }

    private static CounterSnapshot counter(String name, String help, long value) {
        return CounterSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(CounterDataPointSnapshot.builder().value(value).build())
                .build();
    }
}
