package io.varve.it;

import static io.varve.it.QuorumRequests.METADATA_VERSION;
import static io.varve.it.QuorumRequests.metadataOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * One controller ({@code process.roles=controller}) and two brokers ({@code process.roles=broker}, observers of the
 * metadata log) as processes: the brokers register and heartbeat over the controller
 * listener, admin writes sent to a broker are forwarded to the controller, Admin with {@code bootstrap.controllers}
 * talks to the controller directly, a duplicate node id is refused, a stopped broker is fenced, then unfenced, and a
 * broker shutting down cleanly goes through controlled shutdown. One cluster for the class (three JVMs are expensive
 * on a shared machine); the tests run in order, the ones that stop a broker last.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ControllerRolesIT {
    private static final Duration BOUND = Duration.ofSeconds(60);
    private static final int CONTROLLER_ID = 1;
    private static final int[] BROKER_IDS = {2, 3};
    private static final String SESSION_TIMEOUT_MS = "3000";

    @TempDir
    static Path workDir;

    private final List<ServerProcess> servers = new ArrayList<>();
    private String clusterId;
    private int controllerPort;
    private final int[] brokerPorts = new int[BROKER_IDS.length];
    private ServerProcess controller;
    private final ServerProcess[] brokers = new ServerProcess[BROKER_IDS.length];

    @BeforeAll
    void startCluster() throws Exception {
        clusterId = Uuid.randomUuid().toString();
        controllerPort = ServerProcess.freePort();
        Path controllerDir = workDir.resolve("controller-1");
        QuorumRequests.formatLikeKafkaStorage(controllerDir, clusterId, CONTROLLER_ID);
        controller = ServerProcess.start(
                workDir,
                "controller-1",
                controllerPort,
                "--override",
                "process.roles=controller",
                "--override",
                "node.id=" + CONTROLLER_ID,
                "--override",
                "listeners=CONTROLLER://127.0.0.1:" + controllerPort,
                "--override",
                "controller.quorum.voters=" + voters(),
                "--override",
                "broker.session.timeout.ms=" + SESSION_TIMEOUT_MS,
                "--override",
                "log.dirs=" + controllerDir);
        servers.add(controller);
        for (int i = 0; i < BROKER_IDS.length; i++) {
            brokerPorts[i] = ServerProcess.freePort();
            brokers[i] = startBroker(BROKER_IDS[i], brokerPorts[i], "broker-" + BROKER_IDS[i]);
            servers.add(brokers[i]);
        }
        for (ServerProcess broker : brokers) {
            broker.awaitReady();
        }
    }

    @AfterAll
    void stopAll() throws InterruptedException {
        for (ServerProcess server : servers) {
            server.close();
        }
    }

    @Test
    @Order(1)
    void bothBrokersRegisterAndABrokerDescribesTheClusterAndForwardsDescribeQuorumToTheController() {
        try (Admin admin = admin(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + brokerPorts[0])) {
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> assertThat(nodeIds(admin.describeCluster())).containsExactlyInAnyOrder(2, 3));
            // kafka-metadata-quorum --bootstrap-server: a broker-only node forwards DescribeQuorum to the controller
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .untilAsserted(() -> {
                        org.apache.kafka.clients.admin.QuorumInfo quorum =
                                admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
                        assertThat(quorum.leaderId()).isEqualTo(CONTROLLER_ID);
                        assertThat(quorum.voters())
                                .extracting(v -> v.replicaId())
                                .containsExactly(CONTROLLER_ID);
                        assertThat(quorum.observers())
                                .extracting(o -> o.replicaId())
                                .containsExactlyInAnyOrder(2, 3);
                    });
        }
    }

    @Test
    @Order(2)
    void aTopicCreatedThroughABrokerIsForwardedToTheControllerAndUsableOnBothBrokers() throws Exception {
        String topic = "forwarded";
        try (Admin admin = admin(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + brokerPorts[1])) {
            admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        for (int port : brokerPorts) {
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptions()
                    .untilAsserted(() -> {
                        MetadataResponseData.MetadataResponseTopic described = metadataOf(port, topic);
                        assertThat(Errors.forCode(described.errorCode())).isEqualTo(Errors.NONE);
                        assertThat(described.partitions()).hasSize(4);
                        // placed over both registered, unfenced brokers (never on the controller-only node)
                        assertThat(described.partitions().stream()
                                        .map(p -> p.leaderId())
                                        .collect(Collectors.toSet()))
                                .containsExactlyInAnyOrder(2, 3);
                    });
        }
        produceAndConsume(topic, "127.0.0.1:" + brokerPorts[0]);
        // Two brokers (the controller-only node holds no replicas): a third replica has nowhere to go.
        try (Admin admin = admin(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + brokerPorts[0])) {
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("three-replicas", 1, (short) 3)))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.InvalidReplicationFactorException.class)
                    .hasMessageContaining("only 2 broker(s) are registered");
        }
    }

    @Test
    @Order(3)
    void adminWithBootstrapControllersDescribesTheControllerAndTopicsAreCreatedOnItsListener() throws Exception {
        try (Admin admin = admin(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, "127.0.0.1:" + controllerPort)) {
            DescribeClusterResult cluster = admin.describeCluster();
            assertThat(cluster.clusterId().get(30, TimeUnit.SECONDS)).isEqualTo(clusterId);
            assertThat(nodeIds(cluster)).containsExactly(CONTROLLER_ID);
            assertThat(cluster.controller().get(30, TimeUnit.SECONDS).id()).isEqualTo(CONTROLLER_ID);
            // kafka-metadata-quorum --bootstrap-controller: the brokers fetch the log as observers
            org.apache.kafka.clients.admin.QuorumInfo quorum =
                    admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
            assertThat(quorum.leaderId()).isEqualTo(CONTROLLER_ID);
            assertThat(quorum.voters()).extracting(v -> v.replicaId()).containsExactly(CONTROLLER_ID);
            assertThat(quorum.observers()).extracting(o -> o.replicaId()).containsExactlyInAnyOrder(2, 3);
            // kafka-features --bootstrap-controller: ApiVersions on the controller listener carries the features
            assertThat(admin.describeFeatures()
                            .featureMetadata()
                            .get(30, TimeUnit.SECONDS)
                            .finalizedFeatures())
                    .containsKey("metadata.version");
        }
        // Kafka 4.4's Admin refuses createTopics with bootstrap.controllers on the client side; the controller
        // listener serves it all the same (a Kafka broker's forwarding, kafka-clients' own requests).
        CreateTopicsRequestData create = new CreateTopicsRequestData().setTimeoutMs(30_000);
        create.topics()
                .add(new CreateTopicsRequestData.CreatableTopic()
                        .setName("via-controller")
                        .setNumPartitions(2)
                        .setReplicationFactor((short) 1));
        try (RawClient client = new RawClient(controllerPort)) {
            CreateTopicsResponseData created = client.send(create, (short) 7);
            assertThat(Errors.forCode(created.topics().find("via-controller").errorCode()))
                    .isEqualTo(Errors.NONE);
        }
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(Errors.forCode(
                                metadataOf(brokerPorts[1], "via-controller").errorCode()))
                        .isEqualTo(Errors.NONE));
    }

    @Test
    @Order(4)
    void aSecondBrokerWithTheNodeIdOfALiveOneFailsStartUpWithDuplicateBrokerRegistration() throws Exception {
        ServerProcess duplicate = startBroker(BROKER_IDS[0], ServerProcess.freePort(), "duplicate-2");
        servers.add(duplicate);
        assertThat(duplicate.process().waitFor(60, TimeUnit.SECONDS))
                .as("the duplicate must stop")
                .isTrue();
        assertThat(duplicate.process().exitValue()).isNotZero();
        assertThat(duplicate.output()).contains("DUPLICATE_BROKER_REGISTRATION");
        assertThat(brokers[0].process().isAlive()).isTrue();
    }

    @Test
    @Order(5)
    void aBrokerStoppedLongerThanTheSessionTimeoutIsFencedAndLeftOutOfMetadataThenUnfencedAfterSigcont()
            throws Exception {
        long pid = brokers[1].process().pid();
        signal("-STOP", pid);
        try {
            await().atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .untilAsserted(() -> assertThat(brokersIn(brokerPorts[0])).containsExactly(2));
        } finally {
            signal("-CONT", pid);
        }
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(brokersIn(brokerPorts[0])).containsExactlyInAnyOrder(2, 3));
        for (ServerProcess server : List.of(controller, brokers[0], brokers[1])) {
            assertThat(server.process().isAlive()).as(server.output()).isTrue();
        }
    }

    @Test
    @Order(6)
    void aBrokerShuttingDownCleanlyGetsControlledShutdownAndLeavesTheMetadataAtOnce() throws Exception {
        await().atMost(BOUND)
                .pollInterval(Duration.ofMillis(300))
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(brokersIn(brokerPorts[0])).containsExactlyInAnyOrder(2, 3));

        assertThat(brokers[1].terminate(Duration.ofSeconds(30)))
                .as("SIGTERM ends the broker")
                .isTrue();

        // the broker warns when the controller did not complete it (its INFO lines are off in tests)
        assertThat(brokers[1].output()).doesNotContain("did not complete controlled shutdown");
        // fenced by its controlled shutdown, not by a session running out
        assertThat(brokersIn(brokerPorts[0])).containsExactly(2);
    }

    @Test
    @Order(7)
    void theControllerOnlyNodeShutsDownCleanlyOnSigterm() throws Exception {
        assertThat(controller.terminate(Duration.ofSeconds(30)))
                .as("SIGTERM ends the controller")
                .isTrue();
        assertThat(controller.output()).doesNotContain("Failed to close");
    }

    private ServerProcess startBroker(int id, int port, String name) throws IOException {
        Path dir = workDir.resolve(name);
        QuorumRequests.formatLikeKafkaStorage(dir, clusterId, id);
        return ServerProcess.start(
                workDir,
                name,
                port,
                "--override",
                "process.roles=broker",
                "--override",
                "node.id=" + id,
                "--override",
                "listeners=PLAINTEXT://127.0.0.1:" + port,
                "--override",
                "controller.quorum.voters=" + voters(),
                "--override",
                "broker.session.timeout.ms=" + SESSION_TIMEOUT_MS,
                "--override",
                "broker.heartbeat.interval.ms=500",
                "--override",
                "log.dirs=" + dir);
    }

    private String voters() {
        return CONTROLLER_ID + "@127.0.0.1:" + controllerPort;
    }

    private static void signal(String signal, long pid) throws Exception {
        Process kill = new ProcessBuilder("kill", signal, Long.toString(pid)).start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).isZero();
    }

    private static Set<Integer> nodeIds(DescribeClusterResult cluster) throws Exception {
        return cluster.nodes().get(10, TimeUnit.SECONDS).stream().map(Node::id).collect(Collectors.toSet());
    }

    private static List<Integer> brokersIn(int port) throws IOException {
        MetadataRequestData request = new MetadataRequestData().setTopics(List.of());
        try (RawClient client = new RawClient(port)) {
            MetadataResponseData response = client.send(request, METADATA_VERSION);
            return response.brokers().stream().map(b -> b.nodeId()).sorted().toList();
        }
    }

    private static void produceAndConsume(String topic, String bootstrap) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        int records = 40;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, "controller-roles-it");
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(c)) {
            consumer.subscribe(List.of(topic));
            await().atMost(BOUND).untilAsserted(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.add(r.value());
                }
                assertThat(seen).hasSize(records);
            });
        }
    }

    private static Admin admin(String bootstrapKey, String address) {
        Properties p = new Properties();
        p.put(bootstrapKey, address);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(p);
    }
}
