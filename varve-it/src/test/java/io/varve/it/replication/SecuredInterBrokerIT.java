package io.varve.it.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.cluster.ClusterNode;
import io.varve.it.cluster.ClusterProcesses;
import io.varve.it.security.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three combined nodes whose controller listener and inter-broker listener are SSL with {@code
 * ssl.client.auth=required}: Raft between the voters, the brokers' controller channel, the replica fetchers and the
 * transaction peers all connect with TLS and the broker's certificate (a plaintext or certificate-less connection
 * would be refused by those listeners), while clients use the PLAINTEXT listener. An RF=3 acks=all topic replicates
 * and keeps every acknowledged record through a SIGKILL of its leader.
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
