package io.varve.http.metrics;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.varve.http.view.BrokerView;
import io.varve.http.view.CoordinatorView;
import io.varve.http.view.GroupLag;
import io.varve.http.view.PartitionView;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToDoubleFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The families read from the node's state per partition and per group — log sizes and offsets, tiered sizes and upload
 * lag, the replica manager's partition counts, the coordinators' states and the consumer lag — computed together at
 * most once per {@code varve.metrics.refresh.ms} ({@link Refreshed}) and rendered to text once per format. Computing
 * them reads every partition's log and asks every coordinator shard, tens of milliseconds at 1,000 partitions; the
 * scrapes in between copy the bytes. The counters and histograms the hot paths feed stay live ({@link
 * BrokerCollector}). A scrape waits at most {@code lagTimeoutMs} for the consumer lag; without it the lag families are
 * left out of that computation rather than the scrape failing.
 */
final class NodeStateFamilies {
    private static final Logger log = LoggerFactory.getLogger(NodeStateFamilies.class);
    /** What the OpenMetrics writer ends a scrape with: one scrape's parts go before it. */
    static final byte[] OPEN_METRICS_EOF = "# EOF\n".getBytes(StandardCharsets.US_ASCII);

    private final BrokerView view;
    private final long lagTimeoutMs;
    private final LongSupplier beforeRead;
    private final Refreshed<State> state;

    /** {@code beforeRead}: called before each read of the partitions ({@link TopicTraffic#nextGeneration()}). */
    NodeStateFamilies(
            BrokerView view, LongSupplier beforeRead, long lagTimeoutMs, long refreshMs, LongSupplier nanoClock) {
        this.view = view;
        this.beforeRead = beforeRead;
        this.lagTimeoutMs = lagTimeoutMs;
        this.state = new Refreshed<>(this::compute, refreshMs, nanoClock);
    }

    /** The state as of the latest computation, computing it first when it is a refresh interval old. */
    State current() {
        return state.get();
    }

    /**
     * One computation: the topics held here (for the per-topic counters) and what {@code beforeRead} returned before
     * they were read, and the families, rendered on demand.
     */
    static final class State {
        final Set<String> topics;
        final long readAt;
        final MetricSnapshots families;
        private byte[] text;
        private byte[] openMetrics;

        State(Set<String> topics, long readAt, MetricSnapshots families) {
            this.topics = topics;
            this.readAt = readAt;
            this.families = families;
        }

        /** The families in {@code writer}'s format, without OpenMetrics' end marker; rendered once per format. */
        synchronized byte[] rendered(ExpositionFormatWriter writer, boolean isOpenMetrics) {
            byte[] bytes = isOpenMetrics ? openMetrics : text;
            if (bytes == null) {
                ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
                try {
                    writer.write(out, families);
                } catch (IOException e) {
                    throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
                }
                bytes = out.toByteArray();
                if (isOpenMetrics) {
                    bytes = Arrays.copyOf(bytes, lengthWithoutEof(bytes, bytes.length));
                    openMetrics = bytes;
                } else {
                    text = bytes;
                }
            }
            return bytes;
        }
    }

    /** The length of the first {@code length} bytes of an OpenMetrics scrape without its end marker. */
    static int lengthWithoutEof(byte[] bytes, int length) {
        int from = length - OPEN_METRICS_EOF.length;
        if (from < 0 || !Arrays.equals(bytes, from, length, OPEN_METRICS_EOF, 0, OPEN_METRICS_EOF.length)) {
            throw new IllegalStateException("the OpenMetrics writer did not end with # EOF");
        }
        return from;
    }

    private State compute() {
        List<MetricSnapshot> out = new ArrayList<>();
        long readAt = beforeRead.getAsLong();
        List<PartitionView> partitions = view.partitions();
        // one Labels per partition, shared by its ten families
        Labels[] labels = new Labels[partitions.size()];
        Set<String> topics = new HashSet<>();
        for (int i = 0; i < labels.length; i++) {
            PartitionView p = partitions.get(i);
            labels[i] = Labels.of("partition", Integer.toString(p.partition()), "topic", p.topic());
            topics.add(p.topic());
        }
        replicaManager(out, partitions);
        logs(out, partitions, labels);
        tiered(out, partitions, labels);
        coordinators(out, view.coordinators());
        consumerLag(out);
        return new State(Set.copyOf(topics), readAt, new MetricSnapshots(out));
    }

    private static void replicaManager(List<MetricSnapshot> out, List<PartitionView> partitions) {
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
    }

    private static void logs(List<MetricSnapshot> out, List<PartitionView> partitions, Labels[] labels) {
        out.add(partitionGauge(
                MetricNames.LOG_SIZE,
                "Bytes of the partition's local log",
                partitions,
                labels,
                PartitionView::sizeBytes));
        out.add(partitionGauge(
                MetricNames.LOG_START_OFFSET,
                "The partition's log start offset",
                partitions,
                labels,
                PartitionView::logStartOffset));
        out.add(partitionGauge(
                MetricNames.LOG_END_OFFSET,
                "The partition's log end offset",
                partitions,
                labels,
                PartitionView::logEndOffset));
        out.add(partitionGauge(
                MetricNames.LOG_SEGMENTS,
                "Local segments of the partition's log",
                partitions,
                labels,
                PartitionView::segments));
        out.add(partitionGauge(
                MetricNames.PARTITION_LATEST_OFFSET,
                "The high watermark: the offset a consumer can read to",
                partitions,
                labels,
                PartitionView::highWatermark));
        out.add(partitionGauge(
                MetricNames.PARTITION_EARLIEST_OFFSET,
                "The log start offset",
                partitions,
                labels,
                PartitionView::logStartOffset));
    }

    private static void tiered(List<MetricSnapshot> out, List<PartitionView> partitions, Labels[] labels) {
        out.add(partitionGauge(
                MetricNames.REMOTE_LOG_SIZE,
                "Bytes of the partition in remote storage",
                partitions,
                labels,
                PartitionView::remoteSizeBytes));
        out.add(partitionGauge(
                MetricNames.REMOTE_COPY_LAG_BYTES,
                "Bytes of rolled segments not uploaded yet",
                partitions,
                labels,
                PartitionView::uploadLagBytes));
        out.add(partitionGauge(
                MetricNames.REMOTE_COPY_LAG_SEGMENTS,
                "Rolled segments not uploaded yet",
                partitions,
                labels,
                PartitionView::uploadLagSegments));
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
        byState.forEach((state, n) -> b.dataPoint(point(Labels.of("state", state), n)));
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

    private static GaugeSnapshot partitionGauge(
            String name,
            String help,
            List<PartitionView> partitions,
            Labels[] labels,
            ToDoubleFunction<PartitionView> value) {
        GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(name).help(help);
        for (int i = 0; i < labels.length; i++) {
            b.dataPoint(point(labels[i], value.applyAsDouble(partitions.get(i))));
        }
        return b.build();
    }

    static GaugeDataPointSnapshot point(Labels labels, double value) {
        return GaugeDataPointSnapshot.builder().labels(labels).value(value).build();
    }

    static GaugeSnapshot gauge(String name, String help, double value) {
        return GaugeSnapshot.builder()
                .name(name)
                .help(help)
                .dataPoint(point(Labels.EMPTY, value))
                .build();
    }
}
