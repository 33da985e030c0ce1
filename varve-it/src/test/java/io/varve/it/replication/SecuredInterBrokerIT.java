package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import io.varve.it.security.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes whose controller listener and inter-broker listener are SSL with {@code
 * ssl.client.auth=required}: Raft between the voters, the brokers' controller channel, the replica fetchers and the
 * transaction peers all connect with TLS and the broker's certificate (a plaintext or certificate-less connection
 * would be refused by those listeners), while clients use the PLAINTEXT listener. An RF=3 acks=all topic replicates
 * and keeps every acknowledged record through a SIGKILL of its leader. The same over SASL_SSL and SASL_PLAINTEXT
 * (PLAIN, each node logging in with the username and password of its listener's JAAS entry, Kafka's keys), and a
 * node with a wrong inter-broker password is kept out of the ISR while the others carry on.
 */
class SecuredInterBrokerIT {
    private static final Duration BOUND = ReplicatedTopic.BOUND;
    private static final long PROGRESS = 300;

    private ClusterProcesses cluster;
    private AckLedger ledger;

    @AfterEach
    void stop() {
        if (ledger != null) {
            ledger.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void replicatesOverMutualTlsBetweenNodesAndSurvivesALeaderKill() throws Exception {
        Path workDir = ClusterProcesses.workDir("SecuredInterBrokerIT");
        cluster = withMutualTls(ClusterProcesses.combined(3), workDir).start(workDir);
        replicateAndKillTheLeader();
    }

    /** Broker-only nodes reach the controller (registration, heartbeats, the metadata log) over its SSL listener. */
    @Test
    void brokersOfSeparateControllersRegisterAndReplicateOverMutualTls() throws Exception {
        Path workDir = ClusterProcesses.workDir("SecuredInterBrokerSplitIT");
        cluster = withMutualTls(ClusterProcesses.split(1, 3), workDir).start(workDir);
        replicateAndKillTheLeader();
    }

    @Test
    void replicatesOverSaslSslBetweenNodesAndToTheControllersAndSurvivesALeaderKill() throws Exception {
        Path workDir = ClusterProcesses.workDir("SaslSslInterBrokerIT");
        cluster = withSasl(ClusterProcesses.combined(3), "SASL_SSL", workDir).start(workDir);
        replicateAndKillTheLeader();
    }

    /** Broker-only nodes register, heartbeat and read the metadata log over the controllers' SASL_PLAINTEXT listener. */
    @Test
    void brokersOfSeparateControllersLogInOverSaslPlaintextAndReplicate() throws Exception {
        Path workDir = ClusterProcesses.workDir("SaslPlaintextSplitIT");
        cluster = withSasl(ClusterProcesses.split(1, 3), "SASL_PLAINTEXT", workDir)
                .start(workDir);
        replicateAndKillTheLeader();
    }

    @Test
    void aNodeWithAWrongInterBrokerPasswordStaysOutOfTheIsrAndSaysWhyOnce() throws Exception {
        Path workDir = ClusterProcesses.workDir("SaslWrongPasswordIT");
        cluster = withSasl(ClusterProcesses.combined(3), "SASL_SSL", workDir)
                .override("replica.lag.time.max.ms", "5000")
                .overrideFor(3, "listener.name.sasl_ssl.plain.sasl.jaas.config", jaas("not-the-password"))
                .start(workDir);
        String topic = "sasl-refused";
        await("topic " + topic + " created on replicas 1, 2, 3")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> {
                    try {
                        cluster.admin(cluster.node(1))
                                .createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(1, 2, 3)))
                                        .configs(Map.of("min.insync.replicas", "2"))))
                                .all()
                                .get(10, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException e) {
                        // an earlier attempt that timed out on a loaded machine may have created it
                        if (!(e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException)) {
                            throw e;
                        }
                    }
                    return true;
                });
        await("node 3, whose fetches are refused, leaves the ISR of " + topic)
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(200))
                .ignoreExceptions()
                .until(() -> isr(topic).equals(List.of(1, 2)));
        ledger = AckLedger.start(ReplicatedTopic.bootstrap(cluster.brokers()), topic, 1);
        awaitProgress("with node 3 out of the ISR");
        assertThat(isr(topic)).containsExactly(1, 2);
        String line = "Cannot log in to the node at ";
        String log = cluster.node(3).logTail(1_000_000);
        assertThat(log).contains(line).contains("SASL_AUTHENTICATION_FAILED");
        // one line per peer and reason, not one per retried fetch
        long lines = log.lines().filter(l -> l.contains(line)).count();
        assertThat(lines).as(log).isBetween(1L, 2L);
        assertThat(cluster.node(1).logTail(1_000_000)).doesNotContain(line);
        ledger.stop(Duration.ofMinutes(2));
        assertThat(ledger.verify(ReplicatedTopic.bootstrap(cluster.brokers()), BOUND))
                .isGreaterThanOrEqualTo(ledger.acknowledged());
    }

    private List<Integer> isr(String topic) throws Exception {
        return cluster
                .admin(cluster.node(1))
                .describeTopics(List.of(topic))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get(topic)
                .partitions()
                .get(0)
                .isr()
                .stream()
                .map(n -> n.id())
                .sorted()
                .toList();
    }

    private static String jaas(String password) {
        return "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" password=\""
                + password + "\" user_broker=\"broker-secret\";";
    }

    /**
     * The inter-broker listener {@code protocol} and the controller listener {@code protocol} too, PLAIN on both;
     * the TLS keys when the protocol is SASL_SSL (no client certificates: the SASL login is the proof).
     */
    private static ClusterProcesses.Builder withSasl(ClusterProcesses.Builder builder, String protocol, Path workDir)
            throws Exception {
        String listener = protocol.toLowerCase(java.util.Locale.ROOT);
        builder.extraListener(protocol)
                .secureInternalListeners(protocol, protocol)
                .override("broker.heartbeat.interval.ms", "500")
                .override("broker.session.timeout.ms", "3000")
                .override("min.insync.replicas", "2")
                .override("sasl.enabled.mechanisms", "PLAIN")
                .override("sasl.mechanism.inter.broker.protocol", "PLAIN")
                .override("sasl.mechanism.controller.protocol", "PLAIN")
                .override("listener.name." + listener + ".plain.sasl.jaas.config", jaas("broker-secret"))
                .override("listener.name.controller.plain.sasl.jaas.config", jaas("broker-secret"));
        if (protocol.equals("SASL_SSL")) {
            TestCertificates certs = TestCertificates.authority(workDir.resolve("certs"), "Varve Cluster CA");
            builder.override("ssl.keystore.type", "PKCS12")
                    .override(
                            "ssl.keystore.location",
                            certs.brokerKeystore("PKCS12").toString())
                    .override("ssl.keystore.password", TestCertificates.PASSWORD)
                    .override("ssl.truststore.type", "PKCS12")
                    .override(
                            "ssl.truststore.location",
                            certs.truststore("PKCS12").toString())
                    .override("ssl.truststore.password", TestCertificates.PASSWORD);
        }
        return builder;
    }

    private static ClusterProcesses.Builder withMutualTls(ClusterProcesses.Builder builder, Path workDir)
            throws Exception {
        TestCertificates certs = TestCertificates.authority(workDir.resolve("certs"), "Varve Cluster CA");
        return builder.extraListener("SSL")
                .secureInternalListeners("SSL", "SSL")
                .override("broker.heartbeat.interval.ms", "500")
                .override("broker.session.timeout.ms", "3000")
                .override("min.insync.replicas", "2")
                .override("ssl.keystore.type", "PKCS12")
                .override(
                        "ssl.keystore.location", certs.brokerKeystore("PKCS12").toString())
                .override("ssl.keystore.password", TestCertificates.PASSWORD)
                .override("ssl.truststore.type", "PKCS12")
                .override("ssl.truststore.location", certs.truststore("PKCS12").toString())
                .override("ssl.truststore.password", TestCertificates.PASSWORD)
                .override("ssl.client.auth", "required");
    }

    private void replicateAndKillTheLeader() throws Exception {
        ReplicatedTopic topic = ReplicatedTopic.create(cluster, "secured", 1, Map.of("min.insync.replicas", "2"));
        ledger = AckLedger.start(topic.bootstrap(), topic.name(), 1);
        awaitProgress("over the TLS inter-broker listener");

        ClusterNode leader = cluster.node(topic.leader(0));
        leader.kill();
        topic.awaitLeaderOtherThan(0, leader.id());
        awaitProgress("after node " + leader.id() + " was killed");
        leader.start();
        topic.awaitIsrSize(3);
        awaitProgress("with node " + leader.id() + " back in the ISR");

        ledger.stop(Duration.ofMinutes(2));
        long read = ledger.verify(topic.bootstrap(), BOUND);
        assertThat(ledger.acknowledged()).isGreaterThanOrEqualTo(3 * PROGRESS);
        assertThat(read).isGreaterThanOrEqualTo(ledger.acknowledged());
    }

    private void awaitProgress(String when) {
        long from = ledger.acknowledged();
        await("the producer gets " + PROGRESS + " more acknowledgements " + when + " (from " + from + ")")
                .atMost(BOUND)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> ledger.acknowledged() >= from + PROGRESS);
    }
}
