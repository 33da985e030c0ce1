package io.varve.bench.scenario;

import io.varve.bench.BrokerKind;
import io.varve.bench.BrokerLauncher;
import io.varve.bench.BenchOptions;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.PerfTools;
import io.varve.bench.RunningCluster;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import java.util.List;
import java.util.Map;

/**
 * (12): three combined nodes, replication factor 3, {@code min.insync.replicas=2}, {@code acks=all}: produce
 * throughput as fast as it goes, produce p99 at a fixed rate, end-to-end p99, broker CPU per GiB summed over the
 * three nodes, the largest node's peak RSS, and leader failover (SIGKILL of a partition leader that is not the active
 * controller, until the first acknowledged produce after it).
 */
public final class ReplicatedCluster implements Scenario {

    static final int NODES = 3;
    static final Figure THROUGHPUT = Figure.higher("RF=3 produce throughput, acks=all", "MiB/s", 1.0);
    static final Figure P99_SATURATED = Figure.lower("RF=3 produce p99 latency (saturated)", "ms", null);
    static final Figure P99 = Figure.lower("RF=3 produce p99 latency at fixed rate", "ms", 0.5);
    static final Figure E2E_P99 = Figure.lower("RF=3 end-to-end p99 latency", "ms", 0.5);
    static final Figure CPU_PER_GIB = Figure.lower("RF=3 CPU per GiB produced, summed over the 3 nodes", "CPU s/GiB",
            1.0);
    static final Figure PEAK_RSS = Figure.lower("RF=3 peak RSS of the largest node", "MiB", null);
    static final Figure FAILOVER = Figure.lower("leader failover: SIGKILL to the next acknowledged produce", "ms", 0.5);

    @Override
    public int number() {
        return 12;
    }

    @Override
    public String title() {
        return "Three brokers, replication factor 3, min.insync.replicas=2, acks=all";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return NODES + " combined nodes (broker+controller, one static quorum) on loopback, topic of "
                + ProduceThroughput.PARTITIONS + " partitions RF=3 min.insync.replicas=2; ProducerPerformance "
                + sizes.produceRecords() + " x 1 KiB acks=all linger.ms=5 as fast as it goes, then --throughput "
                + sizes.latencyRatePerSec() + " for " + sizes.latencyRecords() + " records; EndToEndLatency "
                + sizes.endToEndMessages() + " messages acks=all; then " + LeaderFailover.DESCRIPTION;
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        BenchOptions.Sizes sizes = context.sizes();
        BrokerLauncher launcher = context.launcher();
        RunningCluster cluster = launcher.startCluster(kind, label, NODES);
        try {
            String topic = "bench-rf3-" + label;
            String latencyTopic = "bench-rf3-latency-" + label;
            String e2eTopic = "bench-rf3-e2e-" + label;
            ClusterTopics.create(cluster, Map.of(topic, ProduceThroughput.PARTITIONS, latencyTopic,
                    ProduceThroughput.PARTITIONS, e2eTopic, 1), NODES);
            if (sizes.warmupRecords() > 0) {
                String warmup = "bench-rf3-warmup-" + label;
                ClusterTopics.create(cluster, Map.of(warmup, ProduceThroughput.PARTITIONS), NODES);
                context.tools().produce(label + "-warmup", cluster.bootstrap(), warmup, sizes.warmupRecords(),
                        ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props("all"));
            }
            Measurement measurement = new Measurement();
            double cpuAtStart = cluster.cpuSeconds();
            PerfTools.ProducerResult saturated = context.tools().produce(label, cluster.bootstrap(), topic,
                    sizes.produceRecords(), ScenarioContext.RECORD_SIZE_BYTES, -1, Producing.props("all"));
            double cpuSeconds = cluster.cpuSeconds() - cpuAtStart;
            measurement.put(THROUGHPUT, saturated.mibPerSec()).put(P99_SATURATED, saturated.p99Ms());
            double gib = saturated.records() * (double) ScenarioContext.RECORD_SIZE_BYTES / ScenarioContext.GIB;
            measurement.put(CPU_PER_GIB, cpuSeconds / gib);

            PerfTools.ProducerResult paced = context.tools().produce(label + "-paced", cluster.bootstrap(),
                    latencyTopic, sizes.latencyRecords(), ScenarioContext.RECORD_SIZE_BYTES, sizes.latencyRatePerSec(),
                    Producing.props("all"));
            measurement.put(P99, paced.p99Ms());
            try {
                PerfTools.EndToEndResult e2e = context.tools().endToEnd(label, cluster.bootstrap(), e2eTopic,
                        sizes.endToEndMessages(), "all", ScenarioContext.RECORD_SIZE_BYTES);
                measurement.put(E2E_P99, e2e.p99Ms());
            } catch (PerfTools.ToolFailure e) {
                measurement.missing(List.of(E2E_P99), "failed: " + ProduceLatency.firstLine(e.getMessage()));
            }
            measurement.put(PEAK_RSS, cluster.maxPeakRssBytes() / ScenarioContext.MIB);
            try {
                measurement.put(FAILOVER, LeaderFailover.measure(cluster, topic));
            } catch (Exception e) {
                measurement.missing(List.of(FAILOVER), "failed: " + ProduceLatency.firstLine(String.valueOf(
                        e.getMessage())));
            }
            return measurement;
        } finally {
            cluster.stop();
            launcher.discardClusterData(kind, NODES);
        }
    }
}
