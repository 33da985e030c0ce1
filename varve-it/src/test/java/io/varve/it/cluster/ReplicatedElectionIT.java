package io.varve.it.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leader elections and reassignments of replicated partitions on three real nodes: a reassignment moves a partition's
 * data to new replicas before the old ones leave; with unclean election off a partition whose ISR and ELR members are
 * all gone stays offline although another replica is back, until unclean election is turned on for the topic; the
 * automatic rebalance gives a leadership back to its preferred replica once that one is in sync again.
 */
class ReplicatedElectionIT {
    private static final Duration BOUND = Duration.ofSeconds(60);

    private ClusterProcesses cluster;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        cluster = ClusterProcesses.combined(3)
                .override("broker.session.timeout.ms", "3000")
                .override("broker.heartbeat.interval.ms", "500")
                .override("replica.lag.time.max.ms", "4000")
                .override("replica.fetch.wait.max.ms", "200")
                .override("leader.imbalance.check.interval.seconds", "2")
                .start(ClusterProcesses.workDir("ReplicatedElectionIT"));
        cluster.awaitLeader(BOUND);
        admin = cluster.admin(cluster.node(1));
        cluster.awaitBrokers(3, BOUND);
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aReassignmentCopiesThePartitionToItsNewReplicasBeforeTheOldOneLeaves() throws Exception {
        createTopic(new NewTopic("moved", Map.of(0, List.of(1))));
        List<String> written = produce("moved", 500, cluster.node(2));

        admin.alterPartitionReassignments(Map.of(
                        new TopicPartition("moved", 0), Optional.of(new NewPartitionReassignment(List.of(2, 3)))))
                .all()
                .get(30, TimeUnit.SECONDS);

        await("moved-0 reassigned to [2, 3]")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> admin.listPartitionReassignments()
                                .reassignments()
                                .get(10, TimeUnit.SECONDS)
                                .isEmpty()
                        && ids(partition("moved").replicas()).equals(List.of(2, 3))
                        && ids(partition("moved").isr()).containsAll(List.of(2, 3)));
        assertThat(partition("moved").leader().id()).isEqualTo(2);
        cluster.node(1).kill(); // the old replica is gone: every record must come from the new ones
        assertThat(readAll("moved", written.size(), cluster.node(2))).containsExactlyElementsOf(written);
    }

    @Test
    void withUncleanElectionOffAPartitionStaysOfflineUntilTheTopicAllowsAnOutOfSyncReplicaToLead() throws Exception {
        createTopic(new NewTopic("fragile", Map.of(0, List.of(1, 2))));
        await("both replicas in sync")
                .atMost(BOUND)
                .ignoreExceptions()
                .until(() -> partition("fragile").isr().size() == 2);
        List<String> written = produce("fragile", 100, cluster.node(3));
        cluster.node(2).kill();
        await("broker 2 out of the ISR")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> ids(partition("fragile").isr()).equals(List.of(1)));
        admin = cluster.admin(cluster.node(3));
        cluster.node(1).kill();
        cluster.node(2).start();
        await("fragile-0 offline")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> partition("fragile").leader() == null
                        || partition("fragile").leader().id() < 0);
        await("broker 2 registered again")
                .atMost(BOUND)
                .ignoreExceptions()
                .until(() -> admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).stream()
                        .anyMatch(n -> n.id() == 2));
        await("fragile-0 stays offline with broker 2 back, for 5 s")
                .during(Duration.ofSeconds(5))
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .until(() -> partition("fragile").leader() == null
                        || partition("fragile").leader().id() < 0);
        assertThat(partition("fragile").elr()).extracting(Node::id).contains(1);

        admin.incrementalAlterConfigs(Map.of(
                        new ConfigResource(ConfigResource.Type.TOPIC, "fragile"),
                        List.of(new AlterConfigOp(
                                new ConfigEntry("unclean.leader.election.enable", "true"), AlterConfigOp.OpType.SET))))
                .all()
                .get(30, TimeUnit.SECONDS);

        await("broker 2 elected uncleanly")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> partition("fragile").leader().id() == 2);
        assertThat(ids(partition("fragile").isr())).containsExactly(2);
        assertThat(readAll("fragile", written.size(), cluster.node(3))).containsExactlyElementsOf(written);
        assertThat(logsOfAll()).contains("Unclean leader election: broker 2 now leads fragile-0");
    }

    @Test
    void aBrokerStoppedCleanlyKeepsItsElrMembershipAndLeadsCleanlyWhenItReturns() throws Exception {
        // KIP-966's PreviousBrokerEpoch: the restart shows the epoch of a clean shutdown, so broker 2 stays
        // eligible; the test above shows a killed one is not
        createTopic(new NewTopic("eligible", Map.of(0, List.of(1, 2))).configs(Map.of("min.insync.replicas", "2")));
        await("both replicas in sync")
                .atMost(BOUND)
                .ignoreExceptions()
                .until(() -> partition("eligible").isr().size() == 2);
        List<String> written = produce("eligible", 100, cluster.node(3));
        assertThat(cluster.node(2).stop(Duration.ofSeconds(30))).isTrue();
        await("broker 2 left the ISR for the ELR")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> ids(partition("eligible").isr()).equals(List.of(1))
                        && partition("eligible").elr().stream().anyMatch(n -> n.id() == 2));
        admin = cluster.admin(cluster.node(3));
        cluster.node(1).kill(); // the only ISR member: only an eligible replica may lead now
        cluster.node(2).start(); // at once, or two of three voters are down and no controller is elected

        await("broker 2 elected from the ELR")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> partition("eligible").leader().id() == 2);
        assertThat(readAll("eligible", written.size(), cluster.node(3))).containsExactlyElementsOf(written);
        assertThat(logsOfAll()).doesNotContain("Unclean leader election: broker 2 now leads eligible-0");
    }

    @Test
    void theAutomaticRebalanceGivesTheLeadershipBackToThePreferredReplicaOnceInSync() throws Exception {
        createTopic(new NewTopic("balanced", Map.of(0, List.of(1, 2, 3))));
        await("three replicas in sync")
                .atMost(BOUND)
                .ignoreExceptions()
                .until(() -> partition("balanced").isr().size() == 3);
        cluster.node(1).kill();
        admin = cluster.admin(cluster.node(2));
        await("leadership moved off broker 1")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> partition("balanced").leader().id() != 1);
        cluster.node(1).start();

        await("broker 1 leads balanced-0 again")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> partition("balanced").leader().id() == 1);
        assertThat(logsOfAll()).contains("Moved 1 leadership(s) back to their preferred replicas");
    }

    private void createTopic(NewTopic topic) {
        await("topic " + topic.name() + " created")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    admin.createTopics(List.of(topic)).all().get(10, TimeUnit.SECONDS);
                    return true;
                });
        await("topic " + topic.name() + " has a leader")
                .atMost(BOUND)
                .ignoreExceptions()
                .until(() -> partition(topic.name()).leader() != null);
    }

    private TopicPartitionInfo partition(String topic) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(topic);
        return description.partitions().get(0);
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    private List<String> produce(String topic, int count, ClusterNode via) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, via.bootstrap());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        List<String> values = new ArrayList<>(count);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                String value = topic + "-" + i;
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get(30, TimeUnit.SECONDS);
                values.add(value);
            }
        }
        return values;
    }

    private List<String> readAll(String topic, int expected, ClusterNode via) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, via.bootstrap());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        List<String> read = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            await(expected + " records read from " + topic)
                    .atMost(BOUND)
                    .pollInSameThread()
                    .until(() -> {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                            read.add(r.value());
                        }
                        return read.size() >= expected;
                    });
        }
        return read;
    }

    /** Every node's output so far, restarts included ({@code logs/node-N*.out}). */
    private String logsOfAll() throws Exception {
        StringBuilder all = new StringBuilder();
        Path logs = cluster.node(1).dataDir().getParent().resolve("logs");
        try (Stream<Path> files = Files.list(logs)) {
            for (Path log : files.filter(p -> p.getFileName().toString().endsWith(".out"))
                    .toList()) {
                all.append(Files.readString(log));
            }
        }
        return all.toString();
    }
}
