package io.varve.bench.scenario;

import io.varve.bench.BenchOptions;
import io.varve.bench.BrokerKind;
import io.varve.bench.BrokerLauncher;
import io.varve.bench.Figure;
import io.varve.bench.Measurement;
import io.varve.bench.RunningCluster;
import io.varve.bench.Scenario;
import io.varve.bench.ScenarioContext;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * (16): creating scenario (5)'s topic of many partitions on scenario (12)'s three combined nodes at replication factor
 * 3: the time from the CreateTopics request until it is answered, and until Metadata (the Admin's describe) shows every
 * partition with a leader and an ISR of all three replicas; the CPU the three nodes spent in that time.
 */
public final class ReplicatedCreation implements Scenario {

    static final Figure ANSWERED = Figure.lower("RF=3 CreateTopics answered", "ms", null);
    static final Figure LED = Figure.lower("RF=3 create until every partition has a leader and a whole ISR", "ms", 1.0);
    static final Figure CPU = Figure.lower("RF=3 CPU s of the 3 nodes until then", "CPU s", null);
    /** How often the describe polls: small beside the figure, cheap beside the creation. */
    private static final long POLL_MS = 20;
    private static final long TIMEOUT_MS = 180_000;

    @Override
    public int number() {
        return 16;
    }

    @Override
    public String title() {
        return "Creating a topic of many partitions at replication factor 3 on three brokers";
    }

    @Override
    public String setup(BenchOptions.Sizes sizes) {
        return ReplicatedCluster.NODES + " combined nodes (broker+controller, one static quorum) on loopback; one topic"
                + " of " + sizes.fleetPartitions() + " partitions, replication factor 3, created with the Admin client"
                + " on a fresh cluster; Admin describe polled every " + POLL_MS + " ms";
    }

    @Override
    public Measurement measure(ScenarioContext context, BrokerKind kind, String label) throws Exception {
        BrokerLauncher launcher = context.launcher();
        RunningCluster cluster = launcher.startCluster(kind, label, ReplicatedCluster.NODES);
        try (Admin admin = ClusterTopics.admin(cluster)) {
            int partitions = context.sizes().fleetPartitions();
            String topic = "bench-rf3-create-" + label;
            // A first round trip outside the clock, so the Admin's own start-up (metadata, connections) is not timed.
            admin.describeCluster().nodes().get(30, TimeUnit.SECONDS);
            double cpuAtStart = cluster.cpuSeconds();
            long startNanos = System.nanoTime();
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) ReplicatedCluster.NODES)))
                    .all()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            long answeredNanos = System.nanoTime();
            awaitLedWithWholeIsr(admin, topic, partitions, startNanos);
            long ledNanos = System.nanoTime();
            double cpuSeconds = cluster.cpuSeconds() - cpuAtStart;
            return new Measurement()
                    .put(ANSWERED, (answeredNanos - startNanos) / 1e6)
                    .put(LED, (ledNanos - startNanos) / 1e6)
                    .put(CPU, cpuSeconds);
        } finally {
            cluster.stop();
            launcher.discardClusterData(kind, ReplicatedCluster.NODES);
        }
    }

    private static void awaitLedWithWholeIsr(Admin admin, String topic, int partitions, long startNanos)
            throws IOException, InterruptedException {
        while (!ledWithWholeIsr(admin, topic, partitions)) {
            if (System.nanoTime() - startNanos > TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS)) {
                throw new IOException(topic + " did not show a leader and a whole ISR on all " + partitions
                        + " partitions within " + TIMEOUT_MS + " ms");
            }
            Thread.sleep(POLL_MS); // polling period of a bounded wait
        }
    }

    private static boolean ledWithWholeIsr(Admin admin, String topic, int partitions) throws InterruptedException {
        try {
            Map<String, TopicDescription> described =
                    admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS);
            List<TopicPartitionInfo> infos = described.get(topic).partitions();
            if (infos.size() < partitions) {
                return false;
            }
            for (TopicPartitionInfo p : infos) {
                if (p.leader() == null || p.leader().id() < 0 || p.isr().size() < ReplicatedCluster.NODES) {
                    return false;
                }
            }
            return true;
        } catch (ExecutionException | TimeoutException e) {
            return false; // not known to the broker asked yet: ask again
        }
    }
}
