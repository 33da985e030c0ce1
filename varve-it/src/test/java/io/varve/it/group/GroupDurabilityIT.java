package io.varve.it.group;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.broker.group.GroupCoordinatorRuntime.PartitionLag;
import io.varve.it.TestBroker;
import io.varve.it.group.GroupClients.Member;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Group state outlives the broker process and consumer restarts: committed offsets, lag, static membership. */
class GroupDurabilityIT {
    @TempDir
    static Path dataDir;

    private static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        Map<String, String> overrides = GroupClients.brokerOverrides();
        // a static member must be able to restart within the session timeout
        overrides.put("group.consumer.session.timeout.ms", "8000");
        broker = TestBroker.start(dataDir, overrides);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static void produce(String topic, int partitionCount, int perPartition, String prefix) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(Map.of())) {
            for (int p = 0; p < partitionCount; p++) {
                for (int i = 0; i < perPartition; i++) {
                    producer.send(new ProducerRecord<>(topic, p, null, (prefix + p + "-" + i).getBytes(UTF_8)));
                }
            }
            producer.flush();
        }
    }

    /** Subscribes, reads until {@code expected} records arrived, commits them and returns their values. */
    private static List<String> consumeAndCommit(Map<String, Object> config, String topic, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(config)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    values.add(new String(r.value(), UTF_8));
                }
            }
            consumer.commitSync(TIMEOUT);
            // nothing more is waiting: the log holds exactly what we expected
            assertThat(consumer.poll(Duration.ofMillis(300))).isEmpty();
        }
        return values;
    }

    @Test
    void committedOffsetsAndLagOfBothProtocolsSurviveABrokerRestart() throws Exception {
        String topic = uniqueTopic("durable");
        TopicPartition p0 = new TopicPartition(topic, 0);
        List<String> protocols = List.of("range", "consumer");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 3);
            admin.alterConsumerGroupOffsets("standalone", Map.of(p0, new OffsetAndMetadata(7, "by admin")))
                    .all()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        }
        produce(topic, 3, 10, "a");
        for (String protocol : protocols) {
            assertThat(consumeAndCommit(GroupClients.memberConfig("durable-" + protocol, protocol), topic, 30))
                    .hasSize(30);
        }
        produce(topic, 1, 5, "b");
        for (String protocol : protocols) {
            List<PartitionLag> lag = broker.broker()
                    .groupCoordinator()
                    .lag("durable-" + protocol)
                    .get(10, TimeUnit.SECONDS);
            assertThat(lag)
                    .containsExactly(
                            new PartitionLag(p0, 10, 15, 5),
                            new PartitionLag(new TopicPartition(topic, 1), 10, 10, 0),
                            new PartitionLag(new TopicPartition(topic, 2), 10, 10, 0));
        }

        broker.restart();

        try (Admin admin = broker.admin()) {
            for (String protocol : protocols) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("durable-" + protocol)
                        .partitionsToOffsetAndMetadata()
                        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertThat(committed).hasSize(3);
                committed.values().forEach(o -> assertThat(o.offset()).isEqualTo(10));
            }
            OffsetAndMetadata byAdmin = admin.listConsumerGroupOffsets("standalone")
                    .partitionsToOffsetAndMetadata()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .get(p0);
            assertThat(byAdmin.offset()).isEqualTo(7);
            assertThat(byAdmin.metadata()).isEqualTo("by admin");
        }
        for (String protocol : protocols) {
            assertThat(broker.broker()
                            .groupCoordinator()
                            .lag("durable-" + protocol)
                            .get(10, TimeUnit.SECONDS)
                            .get(0)
                            .lag())
                    .isEqualTo(5);
            assertThat(consumeAndCommit(GroupClients.memberConfig("durable-" + protocol, protocol), topic, 5))
                    .as("%s: only the records committed before the restart are skipped", protocol)
                    .containsExactlyInAnyOrder("b0-0", "b0-1", "b0-2", "b0-3", "b0-4");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"range", "consumer"})
    void aStaticMemberRestartedWithinItsSessionTimeoutCausesNoRebalance(String protocol) throws Exception {
        String topic = uniqueTopic("static-" + protocol);
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 6);
        }
        String group = "static-" + protocol;
        Map<String, Integer> consumed = new ConcurrentHashMap<>();
        Set<String> uncommitted = ConcurrentHashMap.newKeySet();
        Member a = new Member(broker, staticConfig(group, protocol, "instance-a"), topic, consumed, uncommitted);
        Member b = new Member(broker, staticConfig(group, protocol, "instance-b"), topic, consumed, uncommitted);
        Member restarted = null;
        try {
            await().atMost(TIMEOUT)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> GroupClients.ownExactly(List.of(a, b), 6) && a.owned.size() == 3);
            Set<TopicPartition> aOwned = Set.copyOf(a.owned);
            Set<TopicPartition> bOwned = Set.copyOf(b.owned);
            int bCallbacks = b.rebalanceCallbacks.get();

            a.stop(Member.Stop.LEAVE); // a static member does not leave the group when it closes
            restarted = new Member(broker, staticConfig(group, protocol, "instance-a"), topic, consumed, uncommitted);
            Member back = restarted;
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> back.owned.equals(aOwned));
            assertThat(b.owned).isEqualTo(bOwned);
            assertThat(b.rebalanceCallbacks.get())
                    .as("the other member saw no rebalance")
                    .isEqualTo(bCallbacks);
        } finally {
            List<Member> running = new ArrayList<>(List.of(a, b));
            if (restarted != null) {
                running.add(restarted);
            }
            Member.stopAll(running, Member.Stop.LEAVE);
        }
    }

    private static Map<String, Object> staticConfig(String group, String protocol, String instanceId) {
        Map<String, Object> config = new HashMap<>(GroupClients.memberConfig(group, protocol));
        config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        if (!protocol.equals("consumer")) {
            config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "8000");
        }
        return config;
    }

    @Test
    void theFirstCoordinatorLookupCreatesTheInternalOffsetsTopicWithTheConfiguredPartitions() throws Exception {
        try (Admin admin = broker.admin()) {
            admin.listConsumerGroupOffsets("lookup")
                    .partitionsToOffsetAndMetadata()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            var description = admin.describeTopics(List.of("__consumer_offsets"))
                    .allTopicNames()
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
                    .get("__consumer_offsets");
            assertThat(description.isInternal()).isTrue();
            assertThat(description.partitions()).hasSize(8);
        }
    }
}
