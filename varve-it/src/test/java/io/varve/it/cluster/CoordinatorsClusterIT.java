package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.replication.ReplicatedTopic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Three combined nodes; a topic whose six partitions (one replica each) are led by all three brokers. A transaction
 * over every partition is committed, one aborted, one committed again: its coordinator (one broker) writes the
 * markers of its own partitions itself and sends WriteTxnMarkers to the other two leaders, so a read_committed
 * consumer sees exactly the committed records and every partition's last stable offset reaches its high watermark.
 * A consumer group is coordinated by the broker leading its {@code __consumer_offsets} partition, which
 * FindCoordinator names from the metadata and which commits and serves its offsets. A transactional offset commit
 * to a group coordinator on another broker than the transaction's is verified with that transaction coordinator.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CoordinatorsClusterIT {
    private static final String TOPIC = "spread";
    private static final int PARTITIONS = 6;
    private static final Duration BOUND = ControllerKillIT.BOUND;

    private ClusterProcesses cluster;
    private Admin admin;
    private String bootstrap;

    @BeforeAll
    void start() throws Exception {
        cluster = ClusterProcesses.combined(3)
                .override("offsets.topic.num.partitions", "3")
                .override("transaction.state.log.num.partitions", "3")
                .override("group.initial.rebalance.delay.ms", "0")
                .start(ClusterProcesses.workDir("CoordinatorsClusterIT"));
        cluster.awaitLeader(BOUND);
        ClusterNode first = cluster.nodes().get(0);
        cluster.awaitBrokers(3, BOUND);
        bootstrap = cluster.nodes().stream().map(ClusterNode::bootstrap).collect(Collectors.joining(","));
        admin = cluster.admin(first);
        ReplicatedTopic.create(cluster, new NewTopic(TOPIC, PARTITIONS, (short) 1));
        await("every partition of " + TOPIC + " led")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> leaders().values().stream().allMatch(l -> l >= 0));
        assertThat(new HashSet<>(leaders().values()))
                .as("the brokers leading %s's partitions", TOPIC)
                .hasSize(3);
    }

    @AfterAll
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Partition -> leader, as node 1's metadata has it (-1 when unknown). */
    private Map<Integer, Integer> leaders() {
        Map<Integer, Integer> out = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.put(
                    p,
                    NodeRequests.partitionLeader(cluster.nodes().get(0), TOPIC, p)
                            .orElse(-1));
        }
        return out;
    }

    @Test
    void aTransactionOverPartitionsLedByEveryBrokerCommitsAndAbortsOnEachOfThem() throws Exception {
        String transactionalId = "spread-txn";
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(transactionalId))) {
            producer.initTransactions();
            for (String round : List.of("committed-1", "aborted", "committed-2")) {
                producer.beginTransaction();
                for (int p = 0; p < PARTITIONS; p++) {
                    producer.send(new ProducerRecord<>(TOPIC, p, "k", round + "-" + p));
                }
                if (round.equals("aborted")) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        TransactionDescription txn = admin.describeTransactions(List.of(transactionalId))
                .description(transactionalId)
                .get(10, TimeUnit.SECONDS);
        Map<Integer, Integer> leaders = leaders();
        System.out.printf(
                "CoordinatorsClusterIT: transaction coordinator %d, partition leaders %s%n",
                txn.coordinatorId(), leaders);
        assertThat(leaders.values())
                .as("partitions led by brokers other than the coordinator: their markers travel by WriteTxnMarkers")
                .anyMatch(l -> l != txn.coordinatorId());

        List<TopicPartition> tps = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(TOPIC, p))
                .toList();
        Map<TopicPartition, OffsetSpec> latest =
                tps.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
        await("every partition's last stable offset reaches its high watermark (all markers written)")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    var committed = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                            .all()
                            .get(10, TimeUnit.SECONDS);
                    var uncommitted = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                            .all()
                            .get(10, TimeUnit.SECONDS);
                    return tps.stream()
                            .allMatch(tp -> committed.get(tp).offset()
                                    == uncommitted.get(tp).offset());
                });

        Map<Integer, List<String>> seen = readCommitted(tps);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(seen.get(p))
                    .as("read_committed values of partition %d (led by %d)", p, leaders.get(p))
                    .containsExactly("committed-1-" + p, "committed-2-" + p);
        }
    }

    @Test
    void aConsumerGroupIsCoordinatedByTheLeaderOfItsOffsetsPartitionAndKeepsItsOffsets() throws Exception {
        String group = "spread-group";
        Map<String, Object> config = consumerConfig("read_uncommitted");
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        Map<TopicPartition, Long> positions = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(TOPIC));
            await("the group's member is assigned every partition")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200));
                        return consumer.assignment().size() == PARTITIONS;
                    });
            for (TopicPartition tp : consumer.assignment()) {
                positions.put(tp, consumer.position(tp));
            }
            consumer.commitSync(positions.entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> new OffsetAndMetadata(e.getValue()))));
        }
        int offsetsPartition = Math.abs(group.hashCode()) % 3;
        Optional<Integer> offsetsLeader =
                NodeRequests.partitionLeader(cluster.nodes().get(0), "__consumer_offsets", offsetsPartition);
        ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group))
                .describedGroups()
                .get(group)
                .get(10, TimeUnit.SECONDS);
        assertThat(Optional.of(description.coordinator().id()))
                .as("the coordinator of %s (__consumer_offsets-%d)", group, offsetsPartition)
                .isEqualTo(offsetsLeader);
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(10, TimeUnit.SECONDS);
        Map<TopicPartition, Long> committedOffsets = new HashMap<>();
        committed.forEach((tp, o) -> committedOffsets.put(tp, o.offset()));
        assertThat(committedOffsets).isEqualTo(positions);
    }

    @Test
    void transactionalOffsetsAreVerifiedByTheTransactionsCoordinatorOnAnotherBroker() throws Exception {
        Map<Integer, Integer> offsetsLeaders = internalLeaders("__consumer_offsets");
        Map<Integer, Integer> txnLeaders = internalLeaders("__transaction_state");
        String group = null;
        String transactionalId = null;
        for (int i = 0; i < 1_000 && transactionalId == null; i++) {
            String g = "offsets-group-" + i;
            int groupCoordinator = offsetsLeaders.get(partitionFor(g));
            for (int j = 0; j < 1_000; j++) {
                String t = "offsets-txn-" + j;
                if (txnLeaders.get(partitionFor(t)) != groupCoordinator) {
                    group = g;
                    transactionalId = t;
                    break;
                }
            }
        }
        assertThat(transactionalId)
                .as("a group and a transactional id coordinated by two brokers")
                .isNotNull();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(transactionalId))) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "with-offsets"));
            producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(42)), new ConsumerGroupMetadata(group));
            producer.commitTransaction();
        }
        String groupId = group;
        await("the transactional offset of " + group + " is committed")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> admin.listConsumerGroupOffsets(groupId)
                                .partitionsToOffsetAndMetadata()
                                .get(10, TimeUnit.SECONDS)
                                .get(tp)
                                .offset()
                        == 42);
    }

    /** Partition -> leader of an internal topic, once it exists and every partition is led. */
    private Map<Integer, Integer> internalLeaders(String topic) throws Exception {
        await(topic + " exists and is led")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    try {
                        admin.describeConsumerGroups(List.of("probe")).all().get(10, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        // GROUP_ID_NOT_FOUND: it was asked all the same, which creates the topic
                    }
                    try {
                        admin.describeTransactions(List.of("probe")).all().get(10, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        // TRANSACTIONAL_ID_NOT_FOUND, likewise
                    }
                    return admin
                            .describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(10, TimeUnit.SECONDS)
                            .get(topic)
                            .partitions()
                            .stream()
                            .allMatch(p -> p.leader() != null);
                });
        Map<Integer, Integer> out = new TreeMap<>();
        admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(topic)
                .partitions()
                .forEach(p -> out.put(p.partition(), p.leader().id()));
        return out;
    }

    private static int partitionFor(String key) {
        int h = key.hashCode();
        return (h == Integer.MIN_VALUE ? 0 : Math.abs(h)) % 3;
    }

    private Map<Integer, List<String>> readCommitted(List<TopicPartition> tps) {
        Map<Integer, List<String>> seen = new TreeMap<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig("read_committed"))) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            Map<TopicPartition, Long> end = consumer.endOffsets(tps);
            await("read_committed reaches the last stable offsets " + end)
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                            seen.computeIfAbsent(r.partition(), p -> new ArrayList<>())
                                    .add(r.value());
                        }
                        return tps.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
                    });
        }
        return seen;
    }

    private Properties producerConfig(String transactionalId) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return p;
    }

    private Map<String, Object> consumerConfig(String isolationLevel) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        return c;
    }
}
