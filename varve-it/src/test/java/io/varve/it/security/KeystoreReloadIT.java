package io.varve.it.security;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.security.SecurityClients.listener;
import static io.varve.it.security.SecurityClients.trusting;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.TestBroker;
import io.varve.it.ToolRun;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keystore reload without restart: {@code kafka-configs --entity-type brokers --entity-name <id> --alter
 * --add-config listener.name.ssl.ssl.keystore.*} makes new TLS connections get the new certificate while open ones
 * keep theirs; a keystore that does not load is refused with INVALID_CONFIG and the current one stays. The same for
 * the controller listener with {@code kafka-configs --bootstrap-controller}, as Kafka allows.
 */
class KeystoreReloadIT {
    @TempDir
    static Path dir;

    static TestCertificates certs;
    static TestBroker broker;
    static int nodeId;
    static int controllerPort;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.authority(dir.resolve("ca"), "Varve Reload CA");
        Map<String, String> props = new HashMap<>();
        controllerPort = io.varve.it.ServerProcess.freePort();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,CONTROLLER://127.0.0.1:" + controllerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,CONTROLLER:SSL");
        props.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        props.put("ssl.keystore.location", certs.brokerKeystore("PKCS12").toString());
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.password", TestCertificates.PASSWORD);
        broker = TestBroker.start(dir.resolve("data"), props);
        try (Admin admin = broker.admin()) {
            nodeId = admin.describeCluster()
                    .controller()
                    .get(20, TimeUnit.SECONDS)
                    .id();
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static int sslPort() {
        return broker.broker().boundPort("SSL");
    }

    private static SSLSocket connect() throws Exception {
        return connect(sslPort());
    }

    private static SSLSocket connect(int port) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(certs.truststore("PKCS12"))) {
            trust.load(in, TestCertificates.PASSWORD.toCharArray());
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
        socket.startHandshake();
        return socket;
    }

    private static String servedSubject(SSLSocket socket) throws Exception {
        return ((X509Certificate) socket.getSession().getPeerCertificates()[0])
                .getSubjectX500Principal()
                .getName();
    }

    private static String newConnectionSubject() throws Exception {
        try (SSLSocket socket = connect()) {
            return servedSubject(socket);
        }
    }

    private static String keystoreConfig(Path keystore, String password) {
        return "listener.name.ssl.ssl.keystore.location=" + keystore + ",listener.name.ssl.ssl.keystore.type=PKCS12,"
                + "listener.name.ssl.ssl.keystore.password=" + password;
    }

    @Test
    void kafkaConfigsReloadsTheKeystoreForNewConnectionsAndRefusesOneThatDoesNotLoad() throws Exception {
        assertThat(newConnectionSubject()).isEqualTo("CN=broker,O=Varve Test");
        try (SSLSocket open = connect()) {
            Path renewed = certs.brokerKeystore("broker-renewed", "CN=broker-renewed,O=Varve Test");
            ToolRun run = configs(
                    "--entity-type",
                    "brokers",
                    "--entity-name",
                    String.valueOf(nodeId),
                    "--alter",
                    "--add-config",
                    keystoreConfig(renewed, TestCertificates.PASSWORD));
            assertThat(run.exitCode()).as(run.output()).isZero();
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> newConnectionSubject().equals("CN=broker-renewed,O=Varve Test"));
            // the connection made before the reload keeps its session
            assertThat(servedSubject(open)).isEqualTo("CN=broker,O=Varve Test");
        }
        produceOverTls();

        Path missing = dir.resolve("no-such-keystore.p12");
        ToolRun refused = configs(
                "--entity-type",
                "brokers",
                "--entity-name",
                String.valueOf(nodeId),
                "--alter",
                "--add-config",
                keystoreConfig(missing, TestCertificates.PASSWORD));
        assertThat(refused.exitCode()).isNotZero();
        assertThat(refused.output()).contains("The new keystore of listener SSL is refused, the current one stays");
        assertThat(newConnectionSubject()).isEqualTo("CN=broker-renewed,O=Varve Test");
    }

    @Test
    void kafkaConfigsWithBootstrapControllerReloadsTheControllerListenersKeystore() throws Exception {
        try (SSLSocket before = connect(controllerPort)) {
            assertThat(servedSubject(before)).isEqualTo("CN=broker,O=Varve Test");
        }
        Path renewed = certs.brokerKeystore("controller-renewed", "CN=controller-renewed,O=Varve Test");
        Path commandConfig = dir.resolve("controller-client.properties");
        Files.writeString(
                commandConfig,
                "security.protocol=SSL\nssl.truststore.type=PKCS12\nssl.truststore.location="
                        + certs.truststore("PKCS12") + "\nssl.truststore.password=" + TestCertificates.PASSWORD + "\n");
        ToolRun run = tool(
                List.of(
                        "--bootstrap-controller",
                        "127.0.0.1:" + controllerPort,
                        "--command-config",
                        commandConfig.toString()),
                "--entity-type",
                "brokers",
                "--entity-name",
                String.valueOf(nodeId),
                "--alter",
                "--add-config",
                "listener.name.controller.ssl.keystore.location=" + renewed
                        + ",listener.name.controller.ssl.keystore.type=PKCS12,listener.name.controller.ssl.keystore.password="
                        + TestCertificates.PASSWORD);
        assertThat(run.exitCode()).as(run.output()).isZero();
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> {
                    try (SSLSocket after = connect(controllerPort)) {
                        return servedSubject(after).equals("CN=controller-renewed,O=Varve Test");
                    }
                });
        // the broker listeners keep theirs
        assertThat(newConnectionSubject()).isNotEqualTo("CN=controller-renewed,O=Varve Test");
    }

    @Test
    void aWrongPasswordIsRefusedWithInvalidConfigAndNothingIsStored() throws Exception {
        Path other = certs.brokerKeystore("broker-other", "CN=broker-other,O=Varve Test");
        ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, String.valueOf(nodeId));
        try (Admin admin = broker.admin()) {
            String before = newConnectionSubject();
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(
                                    resource,
                                    List.of(
                                            set("listener.name.ssl.ssl.keystore.location", other.toString()),
                                            set("listener.name.ssl.ssl.keystore.password", "wrong-password"))))
                            .all()
                            .get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("cannot be read as PKCS12");
            assertThat(newConnectionSubject()).isEqualTo(before);
            // keys Varve would not apply at runtime are refused rather than stored and ignored
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(
                                    Map.of(resource, List.of(set("listener.name.ssl.ssl.client.auth", "required"))))
                            .all()
                            .get(20, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(InvalidConfigurationException.class)
                    .hasMessageContaining("cannot be changed while the broker runs");
        }
    }

    private static AlterConfigOp set(String key, String value) {
        return new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET);
    }

    private static void produceOverTls() throws Exception {
        String topic = uniqueTopic("reload");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1);
        }
        Map<String, Object> c = trusting(listener(broker.bootstrap("SSL"), "SSL"), certs, "PKCS12");
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(c)) {
            assertThat(producer.send(new ProducerRecord<>(topic, "after reload".getBytes(UTF_8)))
                            .get(20, TimeUnit.SECONDS)
                            .offset())
                    .isZero();
        }
    }

    private static ToolRun configs(String... args) throws Exception {
        return tool(List.of("--bootstrap-server", broker.bootstrap()), args);
    }

    private static ToolRun tool(List<String> connection, String... args) throws Exception {
        List<String> all = new ArrayList<>(connection);
        all.addAll(List.of(args));
        return ToolRun.run(dir, Duration.ofSeconds(60), "org.apache.kafka.tools.ConfigCommand", all);
    }
}
