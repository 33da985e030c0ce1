package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.replication.ReplicatedTopic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three combined nodes, the internal topics and a data topic with replication factor 3 (min.insync.replicas 2). A
 * consumer group (either protocol) and a transactional producer are picked so that one broker coordinates both; that broker is killed
 * with SIGKILL while the group has committed offsets and the producer has a transaction open. The survivors elect
 * new leaders of the internal partitions, load the coordinators from their replicas, and the clients find them: the
 * group's committed offsets are all there, its member consumes and commits on to the end, the open transaction
 * commits, and a read_committed reader sees every committed record exactly once and no aborted one.
 */
class CoordinatorFailoverIT {
    private static final String TOPIC = "events";
    private static final int PARTITIONS = 3;
    private static final int INTERNAL_PARTITIONS = 3;
    private static final Duration BOUND = ControllerKillIT.BOUND;

    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"consumer", "classic"})
    void aConsumerGroupAndATransactionalProducerSurviveSigkillOfTheirCoordinatorsBroker(String groupProtocol)
            throws Exception {
        cluster = ClusterProcesses.combined(3)
                .override("offsets.topic.num.partitions", Integer.toString(INTERNAL_PARTITIONS))
                .override("transaction.state.log.num.partitions", Integer.toString(INTERNAL_PARTITIONS))
                .override("group.initial.rebalance.delay.ms", "0")
                .override("broker.session.timeout.ms", "3000")
                .override("broker.heartbeat.interval.ms", "500")
                .override("replica.lag.time.max.ms", "5000")
                .start(ClusterProcesses.workDir("CoordinatorFailoverIT-" + groupProtocol));
        cluster.awaitLeader(BOUND);
        ClusterNode first = cluster.nodes().get(0);
        cluster.awaitBrokers(3, BOUND);
        String bootstrap = cluster.nodes().stream().map(ClusterNode::bootstrap).collect(Collectors.joining(","));
        Admin admin = cluster.admin(first);
        ReplicatedTopic.create(cluster, TOPIC, PARTITIONS, Map.of("min.insync.replicas", "2"));
        // FindCoordinator creates the internal topics (replication factor 3, the default).
        await("the internal topics exist")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    try {
                        admin.describeConsumerGroups(List.of("probe")).all().get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        // GROUP_ID_NOT_FOUND: it was asked all the same, which is all this is for
                    }
                    try {
                        admin.describeTransactions(List.of("probe")).all().get(10, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        // TRANSACTIONAL_ID_NOT_FOUND, likewise
                    }
                    admin.describeTopics(List.of("__consumer_offsets", "__transaction_state"))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS);
                    return true;
                });
        ReplicatedTopic offsets = ReplicatedTopic.existing(cluster, "__consumer_offsets", INTERNAL_PARTITIONS);
        ReplicatedTopic transactions = ReplicatedTopic.existing(cluster, "__transaction_state", INTERNAL_PARTITIONS);
        offsets.awaitIsrWhole();
        transactions.awaitIsrWhole();

        Map<Integer, Integer> offsetsLeaders = offsets.leaders();
        Map<Integer, Integer> txnLeaders = transactions.leaders();
        String group = null;
        String transactionalId = null;
        for (int i = 0; i < 1_000 && transactionalId == null; i++) {
            String g = "group-" + i;
            int coordinator = offsetsLeaders.get(offsets.partitionFor(g));
            for (int j = 0; j < 1_000; j++) {
                String t = "txn-" + j;
                if (txnLeaders.get(transactions.partitionFor(t)) == coordinator) {
                    group = g;
                    transactionalId = t;
                    break;
                }
            }
        }
        assertThat(transactionalId)
                .as("a group and a transactional id coordinated by one broker")
                .isNotNull();
        ClusterNode doomed = cluster.node(offsetsLeaders.get(offsets.partitionFor(group)));
        System.out.printf(
                "CoordinatorFailoverIT (%s): %s and %s are coordinated by node %d%n",
                groupProtocol, group, transactionalId, doomed.id());

        List<TopicPartition> tps = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(TOPIC, p))
                .toList();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(bootstrap, transactionalId));
                KafkaConsumer<String, String> consumer =
                        new KafkaConsumer<>(groupConsumerConfig(bootstrap, group, groupProtocol))) {
            producer.initTransactions();
            producer.beginTransaction();
            sendRound(producer, "before");
            producer.commitTransaction();
            producer.beginTransaction();
            sendRound(producer, "aborted");
            producer.abortTransaction();

            consumer.subscribe(List.of(TOPIC));
            Map<TopicPartition, Long> committedBefore = consumeAndCommitUpTo(consumer, endOffsets(admin, tps));

            producer.beginTransaction();
            sendRound(producer, "open-at-kill");

            doomed.kill();
            System.out.printf("CoordinatorFailoverIT: killed node %d%n", doomed.id());
            ClusterNode survivor = cluster.nodes().stream()
                    .filter(n -> n != doomed)
                    .findFirst()
                    .orElseThrow();
            Admin survivorAdmin = cluster.admin(survivor);

            producer.commitTransaction(); // through the new coordinator, which loaded the open transaction
            producer.beginTransaction();
            sendRound(producer, "after");
            producer.commitTransaction();

            String groupId = group;
            await("the group's offsets committed before the kill, served by the new coordinator")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .until(
                            () -> committedOffsets(survivorAdmin, groupId),
                            committed -> committed.equals(committedBefore));
            int newCoordinator = survivorAdmin
                    .describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(10, TimeUnit.SECONDS)
                    .coordinator()
                    .id();
            assertThat(newCoordinator)
                    .as("the group's coordinator after the kill")
                    .isNotEqualTo(doomed.id());

            Map<TopicPartition, Long> end = awaitStable(survivorAdmin, tps);
            Map<TopicPartition, Long> committedAfter = consumeAndCommitUpTo(consumer, end);
            assertThat(committedAfter).isEqualTo(end);
            assertThat(committedOffsets(survivorAdmin, group)).isEqualTo(end);

            Map<Integer, List<String>> seen = readCommitted(bootstrap, tps, end);
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(seen.get(p))
                        .as("read_committed values of partition %d", p)
                        .containsExactly("before-" + p, "open-at-kill-" + p, "after-" + p);
            }
        }
    }

    private static void sendRound(KafkaProducer<String, String> producer, String round) {
        for (int p = 0; p < PARTITIONS; p++) {
            producer.send(new ProducerRecord<>(TOPIC, p, "k", round + "-" + p));
        }
    }

    private static Map<TopicPartition, Long> endOffsets(Admin admin, List<TopicPartition> tps) throws Exception {
        Map<TopicPartition, OffsetSpec> latest =
                tps.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .all()
                .get(10, TimeUnit.SECONDS)
                .forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** The end offsets once every partition's last stable offset is its high watermark (no transaction open). */
    private static Map<TopicPartition, Long> awaitStable(Admin admin, List<TopicPartition> tps) {
        Map<TopicPartition, OffsetSpec> latest =
                tps.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        Map<TopicPartition, Long> end = new HashMap<>();
        await("every partition's last stable offset reaches its high watermark")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    var committed = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                            .all()
                            .get(10, TimeUnit.SECONDS);
                    var uncommitted = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                            .all()
                            .get(10, TimeUnit.SECONDS);
                    end.clear();
                    committed.forEach((tp, info) -> end.put(tp, info.offset()));
                    return tps.stream()
                            .allMatch(tp -> committed.get(tp).offset()
                                    == uncommitted.get(tp).offset());
                });
        return end;
    }

    private static Map<TopicPartition, Long> committedOffsets(Admin admin, String group) throws Exception {
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS)
                .forEach((tp, o) -> out.put(tp, o.offset()));
        return out;
    }

    /** Polls until the member's position reaches {@code end} on every partition, committing as it goes. */
    private static Map<TopicPartition, Long> consumeAndCommitUpTo(
            KafkaConsumer<String, String> consumer, Map<TopicPartition, Long> end) {
        Map<TopicPartition, Long> committed = new HashMap<>();
        await("the group's member consumes and commits up to " + end)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(10))
                .ignoreExceptions()
                .until(() -> {
                    consumer.poll(Duration.ofMillis(200));
                    if (consumer.assignment().size() != end.size()) {
                        return false;
                    }
                    Map<TopicPartition, OffsetAndMetadata> positions = new HashMap<>();
                    for (TopicPartition tp : consumer.assignment()) {
                        positions.put(tp, new OffsetAndMetadata(consumer.position(tp)));
                    }
                    consumer.commitSync(positions, Duration.ofSeconds(10));
                    committed.clear();
                    positions.forEach((tp, o) -> committed.put(tp, o.offset()));
                    return end.entrySet().stream()
                            .allMatch(e -> committed.getOrDefault(e.getKey(), -1L) >= e.getValue());
                });
        return committed;
    }

    private static Map<Integer, List<String>> readCommitted(
            String bootstrap, List<TopicPartition> tps, Map<TopicPartition, Long> end) {
        Map<Integer, List<String>> seen = new TreeMap<>();
        Map<String, Object> config = consumerConfig(bootstrap, "read_committed");
        try (KafkaConsumer<String, String> reader = new KafkaConsumer<>(config)) {
            reader.assign(tps);
            reader.seekToBeginning(tps);
            await("read_committed reaches " + end)
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        for (ConsumerRecord<String, String> r : reader.poll(Duration.ofMillis(200))) {
                            seen.computeIfAbsent(r.partition(), p -> new ArrayList<>())
                                    .add(r.value());
                        }
                        return tps.stream().allMatch(tp -> reader.position(tp) >= end.get(tp));
                    });
        }
        return seen;
    }

    private static Properties producerConfig(String bootstrap, String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        return p;
    }

    private static Map<String, Object> groupConsumerConfig(String bootstrap, String group, String protocol) {
        Map<String, Object> c = consumerConfig(bootstrap, "read_committed");
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        return c;
    }

    private static Map<String, Object> consumerConfig(String bootstrap, String isolationLevel) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        c.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return c;
    }
}
