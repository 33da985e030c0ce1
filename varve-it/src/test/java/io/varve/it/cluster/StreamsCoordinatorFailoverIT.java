package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.ClientSupport;
import io.varve.it.txn.StreamsEosApp;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes, every topic with replication factor 3 (min.insync.replicas 2): a Kafka Streams
 * {@code exactly_once_v2} aggregation ({@link StreamsEosApp}) runs while the broker coordinating its group (and
 * whichever of its transactional ids hash there) is killed with SIGKILL mid-run. Read read_committed, the output is
 * exactly what a single-threaded reference computation gives: per bucket, one update per input record, rising to the
 * exact sum.
 */
class StreamsCoordinatorFailoverIT {
    private static final String INPUT = "amounts";
    private static final String OUTPUT = "sums";
    private static final String APPLICATION_ID = "varve-eos-failover";
    private static final int INPUT_PARTITIONS = 4;
    private static final int OUTPUT_PARTITIONS = 2;
    private static final int INTERNAL_PARTITIONS = 3;
    private static final int USERS = 40;
    private static final int RECORDS_PER_PHASE = 400;
    private static final Duration BOUND = ControllerKillIT.BOUND;

    private final Map<String, Integer> expectedCounts = new TreeMap<>();
    private final Map<String, Long> expectedSums = new TreeMap<>();
    private final Random random = new Random(20261201L);
    private ClusterProcesses cluster;
    private String bootstrap;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void anExactlyOnceAggregationEqualsTheReferenceWhenItsGroupCoordinatorsBrokerIsKilled() throws Exception {
        cluster = ClusterProcesses.combined(3)
                .override("offsets.topic.num.partitions", Integer.toString(INTERNAL_PARTITIONS))
                .override("transaction.state.log.num.partitions", Integer.toString(INTERNAL_PARTITIONS))
                .override("group.initial.rebalance.delay.ms", "0")
                .override("group.min.session.timeout.ms", "500")
                .override("transaction.abort.timed.out.transaction.cleanup.interval.ms", "200")
                .override("broker.session.timeout.ms", "3000")
                .override("broker.heartbeat.interval.ms", "500")
                .override("replica.lag.time.max.ms", "5000")
                .start(ClusterProcesses.workDir("StreamsCoordinatorFailoverIT"));
        cluster.awaitLeader(BOUND);
        ClusterNode first = cluster.nodes().get(0);
        await("all three brokers registered and unfenced")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> NodeRequests.brokerIds(first)
                        .map(ids -> ids.size() == 3)
                        .orElse(false));
        bootstrap = cluster.nodes().stream().map(ClusterNode::bootstrap).collect(Collectors.joining(","));
        Admin admin = cluster.admin(first);
        createTopic(admin, INPUT, INPUT_PARTITIONS);
        createTopic(admin, OUTPUT, OUTPUT_PARTITIONS);

        Path stateDir = ClusterProcesses.workDir("StreamsCoordinatorFailoverIT-state");
        Properties config = StreamsEosApp.config(bootstrap, APPLICATION_ID, stateDir);
        config.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 3);
        config.put(StreamsConfig.producerPrefix(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG), 5000);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig());
                KafkaStreams streams = new KafkaStreams(StreamsEosApp.topology(INPUT, OUTPUT), config)) {
            produce(producer);
            streams.start();
            await("the first sums are committed")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(() -> !committedOutput().isEmpty());
            produce(producer);

            int offsetsPartition = partitionFor(APPLICATION_ID);
            int coordinator = describe(admin, "__consumer_offsets")
                    .partitions()
                    .get(offsetsPartition)
                    .leader()
                    .id();
            ClusterNode doomed = cluster.node(coordinator);
            doomed.kill();
            System.out.printf("StreamsCoordinatorFailoverIT: killed node %d, the group's coordinator%n", coordinator);
            produce(producer);
            produce(producer);

            await("one committed update per input record")
                    .atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .until(() -> updateCounts(committedOutput()).equals(expectedCounts));
            assertThat(streams.state().isRunningOrRebalancing()).isTrue();
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

    private static int partitionFor(String key) {
        int h = key.hashCode();
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % INTERNAL_PARTITIONS;
    }

    private void produce(KafkaProducer<byte[], byte[]> producer) {
        for (int i = 0; i < RECORDS_PER_PHASE; i++) {
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

    /** Every update of every bucket's sum, in output order, read read_committed up to the last stable offset. */
    private Map<String, List<Long>> committedOutput() {
        Map<String, List<Long>> out = new TreeMap<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
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

    private Properties producerConfig() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return p;
    }

    private static TopicDescription describe(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(topic);
    }

    private static void createTopic(Admin admin, String name, int partitions) {
        await("topic " + name + " created and fully replicated")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    try {
                        admin.createTopics(List.of(new NewTopic(name, partitions, (short) 3)
                                        .configs(Map.of("min.insync.replicas", "2"))))
                                .all()
                                .get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            throw e;
                        }
                    }
                    TopicDescription d = describe(admin, name);
                    return d.partitions().stream()
                            .allMatch(p -> p.leader() != null && p.isr().size() == 3);
                });
    }
}
