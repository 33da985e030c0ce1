package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ToolRun;
import io.varve.it.cluster.ClusterProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kafka 4.4's {@code kafka-reassign-partitions --execute --throttle N} on three real nodes: the replica it adds
 * catches up at about N bytes per second (its log's bytes on disk measured over a window while it copies), and
 * {@code --verify} once the move is done removes the throttle configs.
 */
class ReplicationThrottleIT {
    private static final Duration BOUND = Duration.ofSeconds(120);
    private static final String TOPIC = "throttled";
    private static final long RATE_BYTES_PER_SEC = 300_000;
    private static final int RECORDS = 6_000;
    private static final int RECORD_BYTES = 1_000;
    private static final String REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

    private ClusterProcesses cluster;
    private Path workDir;

    @BeforeEach
    void start() throws Exception {
        workDir = ClusterProcesses.workDir("ReplicationThrottleIT");
        cluster = ClusterProcesses.combined(3)
                .override("replica.fetch.wait.max.ms", "200")
                .override("replica.fetch.backoff.ms", "100")
                // small fetches, so one fetch's overshoot of the quota is small beside the window
                .override("replica.fetch.max.bytes", "32768")
                .start(workDir);
        cluster.awaitLeader(BOUND);
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void theReplicaAReassignmentAddsCatchesUpAtTheThrottleRateAndVerifyRemovesTheThrottle() throws Exception {
        ReplicatedTopic throttled = ReplicatedTopic.create(cluster, new NewTopic(TOPIC, Map.of(0, List.of(1, 2))));
        throttled.awaitPreferredLeaders();
        Admin admin = throttled.admin();
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.node(1).bootstrap());
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        java.util.Random random = new java.util.Random(42);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
            for (int i = 0; i < RECORDS; i++) {
                byte[] value = new byte[RECORD_BYTES];
                random.nextBytes(value);
                producer.send(new ProducerRecord<>(TOPIC, 0, null, value));
            }
            producer.flush();
        }
        long leaderBytes = logBytes(1);
        assertThat(leaderBytes).isGreaterThanOrEqualTo((long) RECORDS * RECORD_BYTES);

        String plan = ToolRun.inputFile(
                workDir,
                "plan.json",
                "{\"version\":1,\"partitions\":[{\"topic\":\"" + TOPIC + "\",\"partition\":0,\"replicas\":[1,2,3],"
                        + "\"log_dirs\":[\"any\",\"any\",\"any\"]}]}");
        ToolRun execute =
                runTool("--execute", "--reassignment-json-file", plan, "--throttle", Long.toString(RATE_BYTES_PER_SEC));
        assertThat(execute.exitCode()).as(execute.output()).isZero();

        // the window: from 5 % copied, about five seconds of copying, measured on broker 3's disk
        await("broker 3 started copying")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> logBytes(3) >= leaderBytes / 20);
        long startNanos = System.nanoTime();
        long startBytes = logBytes(3);
        await("a five-second window")
                .atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> System.nanoTime() - startNanos >= TimeUnit.SECONDS.toNanos(5));
        long endBytes = logBytes(3);
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        double rate = (endBytes - startBytes) / seconds;

        assertThat(endBytes)
                .as("still copying after the window (unthrottled it takes well under a second)")
                .isLessThan(leaderBytes);
        assertThat(rate)
                .as("catch-up rate in bytes per second")
                .isBetween(RATE_BYTES_PER_SEC * 0.4, RATE_BYTES_PER_SEC * 1.8);

        await("reassignment done: broker 3 in sync")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> admin.listPartitionReassignments()
                                .reassignments()
                                .get(5, TimeUnit.SECONDS)
                                .isEmpty()
                        && throttled.partition(0).isr().size() == 3);
        ToolRun verify = runTool("--verify", "--reassignment-json-file", plan);
        assertThat(verify.exitCode()).as(verify.output()).isZero();
        assertThat(verify.output()).contains("Reassignment of partition " + TOPIC + "-0 is completed");

        await("throttle configs removed")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    ConfigResource broker1 = new ConfigResource(ConfigResource.Type.BROKER, "1");
                    ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
                    Map<ConfigResource, Config> configs =
                            admin.describeConfigs(List.of(broker1, topic)).all().get(10, TimeUnit.SECONDS);
                    return unsetOrEmpty(configs.get(broker1).get("leader.replication.throttled.rate"))
                            && unsetOrEmpty(configs.get(broker1).get("follower.replication.throttled.rate"))
                            && unsetOrEmpty(configs.get(topic).get("leader.replication.throttled.replicas"))
                            && unsetOrEmpty(configs.get(topic).get("follower.replication.throttled.replicas"));
                });
    }

    private static boolean unsetOrEmpty(ConfigEntry entry) {
        return entry == null
                || entry.source() == ConfigEntry.ConfigSource.DEFAULT_CONFIG
                || entry.value() == null
                || entry.value().isEmpty()
                || entry.value().equals(Long.toString(Long.MAX_VALUE));
    }

    /** The bytes of the partition's segment files on node {@code id}'s disk (segments are not preallocated). */
    private long logBytes(int id) throws IOException {
        Path dir = cluster.node(id).dataDir().resolve(TOPIC + "-0");
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        long total = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".log")).toList()) {
                total += Files.size(f);
            }
        }
        return total;
    }

    /** Runs Kafka 4.4's kafka-reassign-partitions in its own JVM; its output without the admin client's log lines. */
    private ToolRun runTool(String... args) throws IOException, InterruptedException {
        List<String> all =
                new ArrayList<>(List.of("--bootstrap-server", cluster.node(1).bootstrap()));
        all.addAll(List.of(args));
        return ToolRun.run(workDir, Duration.ofSeconds(90), REASSIGN, all).withoutLogLines();
    }
}
