package io.varve.it.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ClientSupport;
import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StreamsEosApp} (exactly_once_v2, a state store, a repartition topic) on three combined nodes with every topic
 * at replication factor 3 and {@code min.insync.replicas=2}: the broker coordinating the application's consumer group
 * is SIGKILLed mid-run and restarted later. The group and the transactions move to the new leaders of their internal
 * partitions, and the committed output (read_committed) is exactly the single-threaded reference.
 */
class StreamsExactlyOnceClusterIT {
    private static final String INPUT = "cluster-amounts";
    private static final String OUTPUT = "cluster-sums";
    private static final String APPLICATION_ID = "varve-eos-cluster-sums";
    private static final int INPUT_PARTITIONS = 4;
    private static final int OUTPUT_PARTITIONS = 2;
    private static final int USERS = 40;
    private static final int RECORDS_PER_PHASE = 600;
    private static final Duration BOUND = Duration.ofSeconds(120);

    @TempDir
    Path workDir;

    private ClusterProcesses cluster;
    private final Map<String, Integer> expectedCounts = new TreeMap<>();
    private final Map<String, Long> expectedSums = new TreeMap<>();
    private final Random random = new Random(20261201L);

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private String bootstrap() {
        return String.join(
                ",", cluster.brokers().stream().map(ClusterNode::bootstrap).toList());
    }

    private Admin admin() {
        return cluster.admin(cluster.brokers().get(0), Map.of("bootstrap.servers", bootstrap()));
    }

    private void produce(KafkaProducer<byte[], byte[]> producer, int records) {
        for (int i = 0; i < records; i++) {
            long amount = 1 + random.nextInt(100);
            String user = "user-" + random.nextInt(USERS);
            String bucket = StreamsEosApp.bucketOf(amount);
            expectedCounts.merge(bucket, 1, Integer::sum);
            expectedSums.merge(bucket, amount, Long::sum);
            producer.send(new ProducerRecord<>(
                    INPUT,
                    user.getBytes(),
                    ByteBuffer.allocate(8).putLong(amount).array()));
        }
        producer.flush();
    }

    private Map<String, List<Long>> committedOutput() {
        Map<String, List<Long>> out = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                TxnClients.consumer(bootstrap(), TxnClients.READ_COMMITTED, Map.of())) {
            for (ConsumerRecord<byte[], byte[]> r : ClientSupport.readAll(consumer, OUTPUT, OUTPUT_PARTITIONS)) {
                out.computeIfAbsent(new String(r.key()), k -> new ArrayList<>())
                        .add(ByteBuffer.wrap(r.value()).getLong());
            }
        }
        return out;
    }

    private static Map<String, Integer> updateCounts(Map<String, List<Long>> output) {
        Map<String, Integer> counts = new TreeMap<>();
        output.forEach((bucket, updates) -> counts.put(bucket, updates.size()));
        return counts;
    }

    private KafkaProducer<byte[], byte[]> inputProducer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return new KafkaProducer<>(p);
    }

    @Test
    void anExactlyOnceAggregationEqualsTheReferenceWhenTheGroupCoordinatorsBrokerIsKilled() throws Exception {
        cluster = ClusterProcesses.combined(3)
                .override("broker.heartbeat.interval.ms", "500")
                .override("broker.session.timeout.ms", "3000")
                .override("default.replication.factor", "3")
                .override("min.insync.replicas", "2")
                .override("offsets.topic.replication.factor", "3")
                .override("transaction.state.log.replication.factor", "3")
                .override("transaction.state.log.min.isr", "2")
                .override("transaction.state.log.num.partitions", "4")
                .override("offsets.topic.num.partitions", "4")
                .override("group.initial.rebalance.delay.ms", "0")
                .override("group.min.session.timeout.ms", "500")
                .override("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200")
                .start(ClusterProcesses.workDir("StreamsExactlyOnceClusterIT"));
        Admin admin = admin();
        await("topics created at replication factor 3")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .until(() -> {
                    admin.createTopics(List.of(
                                    new NewTopic(INPUT, INPUT_PARTITIONS, (short) 3),
                                    new NewTopic(OUTPUT, OUTPUT_PARTITIONS, (short) 3)))
                            .all()
                            .get(10, TimeUnit.SECONDS);
                    return true;
                });
        Properties config = StreamsEosApp.config(bootstrap(), APPLICATION_ID, workDir.resolve("state"));
        config.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        // Every commit waits for two replicas; on a busy two-core machine 4 s is too tight for a transaction.
        config.put(StreamsConfig.producerPrefix(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG), 15000);
        KafkaStreams streams = new KafkaStreams(StreamsEosApp.topology(INPUT, OUTPUT), config);
        try (KafkaProducer<byte[], byte[]> producer = inputProducer()) {
            produce(producer, RECORDS_PER_PHASE);
            streams.start();
            await("first committed output")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .until(() -> !committedOutput().isEmpty());
            int coordinator = admin.describeConsumerGroups(List.of(APPLICATION_ID))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(APPLICATION_ID)
                    .coordinator()
                    .id();
            produce(producer, RECORDS_PER_PHASE);
            ClusterNode killed = cluster.node(coordinator);
            killed.kill();
            produce(producer, RECORDS_PER_PHASE);
            killed.start();
            produce(producer, RECORDS_PER_PHASE);
            await("the committed output has one update per input record")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(1000))
                    .ignoreExceptions()
                    .until(() -> updateCounts(committedOutput()).equals(expectedCounts));
            assertThat(streams.state().isRunningOrRebalancing()).isTrue();
        } finally {
            streams.close(Duration.ofSeconds(30)); // bounded: a close without a timeout may wait for ever
        }
        Map<String, List<Long>> output = committedOutput();
        assertThat(updateCounts(output))
                .as("one update per input record: nothing lost, nothing twice")
                .isEqualTo(expectedCounts);
        Map<String, Long> finalSums = new HashMap<>();
        output.forEach((bucket, updates) -> {
            assertThat(updates)
                    .as("the sum of %s only rises", bucket)
                    .isSorted()
                    .doesNotHaveDuplicates();
            finalSums.put(bucket, updates.get(updates.size() - 1));
        });
        assertThat(finalSums).isEqualTo(expectedSums);
    }
}
