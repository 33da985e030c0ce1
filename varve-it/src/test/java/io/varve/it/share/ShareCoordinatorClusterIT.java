package io.varve.it.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import io.varve.it.replication.ReplicatedTopic;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Share groups on three brokers, with the share coordinator on another broker than the data partition's leader: a
 * share group reads a topic of replication factor 3 whose leader is not the broker leading the group's
 * {@code __share_group_state} partition (so every state read and write crosses the inter-broker listener), nor the
 * group coordinator. Records are delivered once per acquisition; the leader is then killed with SIGKILL while some
 * records are accepted and others released. The new leader reads the state from the share coordinator: no accepted
 * record comes again, the released ones come back on their second delivery, and the records produced after the kill
 * are delivered too.
 */
class ShareCoordinatorClusterIT {
    private static final String TOPIC = "jobs";
    private static final String STATE_TOPIC = "__share_group_state";
    private static final String OFFSETS_TOPIC = "__consumer_offsets";
    private static final int INTERNAL_PARTITIONS = 3;
    private static final Duration BOUND = ReplicatedTopic.BOUND;

    private ClusterProcesses cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void acceptedRecordsAreNotRedeliveredAfterTheLeaderIsKilledAndTheStateLivesOnAnotherBroker() throws Exception {
        ClusterProcesses.Builder builder = ClusterProcesses.combined(3)
                .override("broker.session.timeout.ms", "3000")
                .override("broker.heartbeat.interval.ms", "500")
                .override("replica.lag.time.max.ms", "5000");
        for (Map.Entry<String, String> e : ShareClients.brokerOverrides().entrySet()) {
            builder.override(e.getKey(), e.getValue());
        }
        builder.override("offsets.topic.num.partitions", Integer.toString(INTERNAL_PARTITIONS))
                .override("share.coordinator.state.topic.num.partitions", Integer.toString(INTERNAL_PARTITIONS));
        cluster = builder.start(ClusterProcesses.workDir("ShareCoordinatorClusterIT"));
        cluster.awaitLeader(BOUND);
        cluster.awaitBrokers(3, BOUND);
        List<Integer> ids = cluster.nodes().stream().map(ClusterNode::id).toList();
        int leader = ids.get(0);
        ReplicatedTopic jobs = ReplicatedTopic.create(
                cluster, new NewTopic(TOPIC, Map.of(0, ids)).configs(Map.of("min.insync.replicas", "2")));
        String bootstrap = cluster.nodes().stream().map(ClusterNode::bootstrap).collect(Collectors.joining(","));
        Admin admin = jobs.admin();
        Uuid topicId = admin.describeTopics(List.of(TOPIC))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(TOPIC)
                .topicId();
        assertThat(jobs.leader(0)).isEqualTo(leader);

        // A probe group's first share fetch makes the leader read its state: both internal topics get created.
        try (KafkaShareConsumer<String, String> probe = ShareClients.consumer(bootstrap, "probe", "explicit", 10)) {
            probe.subscribe(List.of(TOPIC));
            await("the share state topic and the offsets topic exist")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptions()
                    .until(() -> {
                        probe.poll(Duration.ofMillis(200)).forEach(r -> probe.acknowledge(r));
                        return admin.describeTopics(List.of(STATE_TOPIC, OFFSETS_TOPIC))
                                        .allTopicNames()
                                        .get(5, TimeUnit.SECONDS)
                                        .size()
                                == 2;
                    });
        }
        ReplicatedTopic state = ReplicatedTopic.existing(cluster, STATE_TOPIC, INTERNAL_PARTITIONS);
        ReplicatedTopic offsets = ReplicatedTopic.existing(cluster, OFFSETS_TOPIC, INTERNAL_PARTITIONS);
        state.awaitIsrWhole();
        offsets.awaitIsrWhole();
        Map<Integer, Integer> stateLeaders = state.leaders();
        Map<Integer, Integer> offsetsLeaders = offsets.leaders();
        String group = null;
        for (int i = 0; i < 1_000 && group == null; i++) {
            String g = "workers-" + i;
            int shareCoordinator = stateLeaders.get(state.partitionFor(g + ":" + topicId + ":0"));
            int groupCoordinator = offsetsLeaders.get(offsets.partitionFor(g));
            if (shareCoordinator != leader && groupCoordinator != leader) {
                group = g;
            }
        }
        assertThat(group)
                .as("a group whose share and group coordinators are not the partition's leader")
                .isNotNull();
        int shareCoordinator = stateLeaders.get(state.partitionFor(group + ":" + topicId + ":0"));
        System.out.printf(
                "ShareCoordinatorClusterIT: %s-0 led by node %d, the share state of %s by node %d%n",
                TOPIC, leader, group, shareCoordinator);

        Set<String> deliveries = new HashSet<>(); // value@deliveryCount: each acquisition hands a record out once
        Set<String> acceptedBeforeKill = new LinkedHashSet<>();
        Set<String> releasedBeforeKill = new LinkedHashSet<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig(bootstrap));
                KafkaShareConsumer<String, String> consumer =
                        ShareClients.consumer(bootstrap, group, "explicit", 100)) {
            consumer.subscribe(List.of(TOPIC));
            // the group starts at the partition's end: warm up until the consumer gets a record
            long deadline = System.nanoTime() + BOUND.toNanos();
            boolean warm = false;
            for (int n = 0; !warm; n++) {
                assertThat(System.nanoTime()).as("a warm-up record arrived").isLessThan(deadline);
                send(producer, "warm" + n);
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(300))) {
                    delivered(deliveries, r);
                    consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                    acceptedBeforeKill.add(r.value());
                    warm = true;
                }
                commit(consumer);
            }
            Set<String> bSeen = new HashSet<>();
            for (int i = 0; i < 20; i++) {
                producer.send(record("b" + i));
            }
            producer.flush();
            // accept the even ones, release the odd ones; every acknowledgement confirmed before the kill
            while (bSeen.size() < 20) {
                assertThat(System.nanoTime()).as("all of b0-b19 delivered").isLessThan(deadline);
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(300))) {
                    String v = r.value();
                    delivered(deliveries, r);
                    if (v.startsWith("warm")) {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                        acceptedBeforeKill.add(v);
                        continue;
                    }
                    bSeen.add(v);
                    boolean even = Integer.parseInt(v.substring(1)) % 2 == 0;
                    if (even || releasedBeforeKill.contains(v)) {
                        consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                        acceptedBeforeKill.add(v);
                        releasedBeforeKill.remove(v);
                    } else {
                        consumer.acknowledge(r, AcknowledgeType.RELEASE);
                        releasedBeforeKill.add(v);
                    }
                }
                commit(consumer);
            }
            // a released record is available again at once: this consumer may have taken some back already
            assertThat(acceptedBeforeKill)
                    .as("the even ones accepted")
                    .contains("b0", "b2", "b4", "b6", "b8", "b10", "b12", "b14", "b16", "b18");
            assertThat(releasedBeforeKill)
                    .as("released and not taken back before the kill")
                    .isNotEmpty();

            ClusterNode doomed = cluster.node(leader);
            doomed.kill();
            System.out.printf("ShareCoordinatorClusterIT: killed node %d%n", leader);
            int newLeader = jobs.awaitLeaderOtherThan(0, leader);
            System.out.printf("ShareCoordinatorClusterIT: %s-0 now led by node %d%n", TOPIC, newLeader);
            for (int i = 0; i < 10; i++) {
                producer.send(record("c" + i));
            }
            producer.flush();

            Set<String> wanted = new LinkedHashSet<>(releasedBeforeKill);
            for (int i = 0; i < 10; i++) {
                wanted.add("c" + i);
            }
            List<String> afterKill = new ArrayList<>();
            Set<String> accepted = new HashSet<>();
            long afterDeadline = System.nanoTime() + BOUND.toNanos();
            while (!accepted.containsAll(wanted)) {
                assertThat(System.nanoTime())
                        .as("accepted after the kill so far: %s of %s", accepted, wanted)
                        .isLessThan(afterDeadline);
                List<ConsumerRecord<String, String>> got = new ArrayList<>();
                consumer.poll(Duration.ofMillis(300)).forEach(got::add);
                for (ConsumerRecord<String, String> r : got) {
                    String v = r.value();
                    afterKill.add(v + "@" + r.deliveryCount().orElse((short) -1));
                    delivered(deliveries, r);
                    assertThat(acceptedBeforeKill)
                            .as("a record accepted before the kill is not delivered again (%s)", v)
                            .doesNotContain(v);
                    if (releasedBeforeKill.contains(v)) {
                        assertThat(r.deliveryCount().orElse((short) 0))
                                .as("%s was delivered before the kill", v)
                                .isGreaterThanOrEqualTo((short) 2);
                    }
                    consumer.acknowledge(r, AcknowledgeType.ACCEPT);
                }
                Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
                if (result.values().stream().allMatch(Optional::isEmpty)) {
                    got.forEach(r -> accepted.add(r.value()));
                }
                // a failed commit (its records were acquired from the killed leader) leaves them to come again
            }
            System.out.printf("ShareCoordinatorClusterIT: delivered after the kill: %s%n", afterKill);
        }
    }

    /** Records one delivery: a record is handed out once per acquisition, so never twice at one delivery count. */
    private static void delivered(Set<String> deliveries, ConsumerRecord<String, String> r) {
        assertThat(deliveries.add(r.value() + "@" + r.deliveryCount().orElse((short) -1)))
                .as("%s delivered once at delivery count %s", r.value(), r.deliveryCount())
                .isTrue();
    }

    private static void commit(KafkaShareConsumer<String, String> consumer) {
        Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync();
        result.forEach((tp, error) -> assertThat(error)
                .as("the acknowledgements of %s were written", tp)
                .isEmpty());
    }

    private static Properties producerConfig(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    private static void send(KafkaProducer<byte[], byte[]> producer, String value) {
        producer.send(record(value));
        producer.flush();
    }

    private static ProducerRecord<byte[], byte[]> record(String value) {
        return new ProducerRecord<>(TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }
}
