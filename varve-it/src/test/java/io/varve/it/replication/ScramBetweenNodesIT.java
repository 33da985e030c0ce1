package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes whose inter-broker listener is SASL_PLAINTEXT with SCRAM-SHA-512, the users (the nodes' own
 * {@code broker} and a client {@code alice}) given at format time ({@code --add-scram}), so the nodes can log in to
 * each other on the cluster's first start, before anyone could create a user. An RF=3 {@code acks=all} topic
 * replicates over those logins. And a delegation token (KIP-48) that alice creates through a broker that is not the
 * active controller (the broker forwards the request in an Envelope carrying her principal) authenticates her, as a
 * SCRAM {@code tokenauth} login, on another broker, which knows the token from the metadata log.
 */
class ScramBetweenNodesIT {
    private static final Duration BOUND = ReplicatedTopic.BOUND;
    private static final String LISTENER = "SASL_PLAINTEXT";
    private static final String SCRAM = "org.apache.kafka.common.security.scram.ScramLoginModule";

    private static ClusterProcesses cluster;

    @BeforeAll
    static void start() throws Exception {
        Path workDir = ClusterProcesses.workDir("ScramBetweenNodesIT");
        cluster = ClusterProcesses.combined(3)
                .extraListener(LISTENER)
                .secureInternalListeners(LISTENER, "PLAINTEXT")
                .addScram(
                        "SCRAM-SHA-512=[name=broker,password=broker-secret]",
                        "SCRAM-SHA-512=[name=alice,password=alice-secret]")
                .override("broker.heartbeat.interval.ms", "500")
                .override("broker.session.timeout.ms", "3000")
                .override("min.insync.replicas", "2")
                .override("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                .override("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512")
                .override(
                        "listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config",
                        SCRAM + " required username=\"broker\" password=\"broker-secret\";")
                .override("delegation.token.secret.key", "scram-between-nodes-it-secret")
                .start(workDir);
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void nodesReplicateWithAcksAllOverScramSha512LoginsOfUsersGivenAtFormatTime() throws Exception {
        ReplicatedTopic topic =
                ReplicatedTopic.create(cluster, "scram-between-nodes", 1, Map.of("min.insync.replicas", "2"));
        topic.awaitIsrWhole();
        try (AckLedger ledger = AckLedger.start(topic.bootstrap(), topic.name(), 1)) {
            await("300 records acknowledged by all three replicas")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> ledger.acknowledged() >= 300);
            ledger.stop(Duration.ofMinutes(1));
            assertThat(ledger.verify(topic.bootstrap(), BOUND)).isGreaterThanOrEqualTo(ledger.acknowledged());
        }
        assertThat(topic.partition(0).isr()).hasSize(3);
        for (ClusterNode node : cluster.nodes()) {
            assertThat(node.logTail(1_000_000)).doesNotContain("Cannot log in to the node at ");
        }
    }

    @Test
    void aDelegationTokenCreatedThroughAForwardingBrokerAuthenticatesOnAnotherBroker() throws Exception {
        int activeController = cluster.awaitLeader(BOUND).leaderId();
        List<ClusterNode> others =
                cluster.nodes().stream().filter(n -> n.id() != activeController).toList();
        ClusterNode forwarding = others.get(0);
        ClusterNode another = others.get(1);

        AtomicReference<DelegationToken> created = new AtomicReference<>();
        try (Admin alice = admin(scram(forwarding, "alice", "alice-secret", false))) {
            await("alice creates a token through node " + forwarding.id() + " (not the active controller "
                            + activeController + ")")
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() -> {
                        created.set(
                                alice.createDelegationToken().delegationToken().get(15, TimeUnit.SECONDS));
                        return true;
                    });
        }
        DelegationToken token = created.get();
        assertThat(token.tokenInfo().owner().toString()).isEqualTo("User:alice");

        Map<String, Object> withToken = scram(another, token.tokenInfo().tokenId(), token.hmacAsBase64String(), true);
        try (Admin asToken = admin(withToken)) {
            await("the token authenticates alice on node " + another.id())
                    .atMost(BOUND)
                    .pollInterval(Duration.ofMillis(300))
                    .ignoreExceptions()
                    .until(() -> asToken.describeCluster()
                            .clusterId()
                            .get(10, TimeUnit.SECONDS)
                            .equals(cluster.clusterId()));
        }
        ReplicatedTopic topic = ReplicatedTopic.create(cluster, "token-writes", 1, Map.of());
        topic.awaitIsrWhole();
        Map<String, Object> producer = new HashMap<>(withToken);
        producer.put(ProducerConfig.ACKS_CONFIG, "all");
        producer.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        try (KafkaProducer<byte[], byte[]> p =
                new KafkaProducer<>(producer, new ByteArraySerializer(), new ByteArraySerializer())) {
            RecordMetadata written = p.send(new ProducerRecord<>(topic.name(), "by-token".getBytes()))
                    .get(30, TimeUnit.SECONDS);
            assertThat(written.offset()).isZero();
        }
    }

    /** A SCRAM-SHA-512 client of {@code node}'s SASL_PLAINTEXT listener; {@code tokenauth}: a delegation token. */
    private static Map<String, Object> scram(ClusterNode node, String user, String password, boolean tokenAuth) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap(node, LISTENER));
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, LISTENER);
        c.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        c.put(
                SaslConfigs.SASL_JAAS_CONFIG,
                SCRAM + " required username=\"" + user + "\" password=\"" + password + "\""
                        + (tokenAuth ? " tokenauth=true" : "") + ";");
        return c;
    }

    private static Admin admin(Map<String, Object> config) {
        Properties p = new Properties();
        p.putAll(config);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return Admin.create(p);
    }
}
