package io.varve.it.security;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS listeners with kafka-clients and kcat: SSL without client authentication (PKCS12 keystore), SSL requiring a
 * client certificate (JKS keystore), SSL from PEM text; produce and consume (fetches go through the cipher), and
 * Kafka's refusals: no client certificate where one is required, a certificate from another authority, plaintext on a
 * TLS port.
 */
class TlsIT {
    private static final Path KCAT = Path.of("/usr/bin/kcat");

    @TempDir
    static Path dir;

    static TestCertificates certs;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.authority(dir.resolve("ca"), "Varve Test CA");
        Path pkcs12 = certs.brokerKeystore("PKCS12");
        Path jks = certs.brokerKeystore("JKS");
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0,PEM://127.0.0.1:0");
        props.put(
                "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,PEM:SSL,CONTROLLER:PLAINTEXT");
        props.put("listener.name.ssl.ssl.keystore.type", "PKCS12");
        props.put("listener.name.ssl.ssl.keystore.location", pkcs12.toString());
        props.put("ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("ssl.key.password", TestCertificates.PASSWORD);
        props.put("listener.name.mtls.ssl.keystore.type", "JKS");
        props.put("listener.name.mtls.ssl.keystore.location", jks.toString());
        props.put("listener.name.mtls.ssl.client.auth", "required");
        props.put(
                "listener.name.mtls.ssl.truststore.location",
                certs.truststore("PKCS12").toString());
        props.put("listener.name.mtls.ssl.truststore.type", "PKCS12");
        props.put("listener.name.mtls.ssl.truststore.password", TestCertificates.PASSWORD);
        props.put("listener.name.mtls.ssl.principal.mapping.rules", "RULE:^CN=([^,]*),.*$/$1/L,DEFAULT");
        props.put("listener.name.pem.ssl.keystore.type", "PEM");
        props.put("listener.name.pem.ssl.keystore.certificate.chain", TestCertificates.pemChain(pkcs12));
        props.put("listener.name.pem.ssl.keystore.key", TestCertificates.pemKey(pkcs12));
        props.put("listener.name.pem.ssl.key.password", "");
        broker = TestBroker.start(dir.resolve("data"), props);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static String bootstrap(String listener) {
        return "127.0.0.1:" + broker.broker().boundPort(listener);
    }

    private static Map<String, Object> ssl(String listener) throws Exception {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap(listener));
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        c.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, certs.truststore("JKS").toString());
        c.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "JKS");
        c.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        return c;
    }

    private static Map<String, Object> withClientCertificate(Map<String, Object> c, Path keystore) {
        c.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keystore.toString());
        c.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
        c.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        c.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        return c;
    }

    private static Admin admin(Map<String, Object> c) {
        Properties p = new Properties();
        p.putAll(c);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return Admin.create(p);
    }

    /** Produces {@code count} records of 2 KiB through {@code client}'s listener and reads them back with a group. */
    private static void roundTrip(Map<String, Object> client, int count) throws Exception {
        String topic = uniqueTopic("tls");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 2);
        }
        byte[] value = new byte[2048];
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(client)) {
            for (int i = 0; i < count; i++) {
                value[0] = (byte) i;
                producer.send(new ProducerRecord<>(topic, ("k" + i).getBytes(UTF_8), value.clone()));
            }
            producer.flush();
        }
        Map<String, Object> consumerConfig = new HashMap<>(client);
        consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-group");
        List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = broker.consumer(consumerConfig)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (records.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            consumer.commitSync();
        }
        assertThat(records).hasSize(count);
        assertThat(records).allSatisfy(r -> assertThat(r.value()).hasSize(2048));
    }

    @Test
    void clientsProduceAndConsumeOverTlsWithoutAClientCertificate() throws Exception {
        roundTrip(ssl("SSL"), 500);
    }

    @Test
    void aClientCertificateSignedByTheTrustedAuthorityIsAcceptedWhereOneIsRequired() throws Exception {
        roundTrip(withClientCertificate(ssl("MTLS"), certs.clientKeystore("alice", "CN=Alice,O=Varve Test")), 50);
    }

    @Test
    void aPemKeystoreServesTls() throws Exception {
        roundTrip(ssl("PEM"), 50);
    }

    @Test
    void aClientWithoutACertificateIsRefusedWhereOneIsRequired() throws Exception {
        try (Admin admin = admin(ssl("MTLS"))) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }

    @Test
    void aClientCertificateFromAnotherAuthorityIsRefused() throws Exception {
        TestCertificates other = TestCertificates.authority(dir.resolve("other-ca"), "Someone Else's CA");
        Map<String, Object> c = withClientCertificate(ssl("MTLS"), other.clientKeystore("mallory", "CN=mallory"));
        try (Admin admin = admin(c)) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }

    @Test
    void aClientThatDoesNotTrustTheBrokersAuthorityRefusesIt() throws Exception {
        TestCertificates other = TestCertificates.authority(dir.resolve("client-ca"), "Client Only CA");
        Map<String, Object> c = ssl("SSL");
        c.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, other.truststore("JKS").toString());
        try (Admin admin = admin(c)) {
            assertThatThrownBy(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(SslAuthenticationException.class);
        }
    }

    @Test
    void aPlaintextClientOnATlsPortGetsNoAnswerAndIsDisconnected() throws Exception {
        try (RawClient raw = new RawClient("127.0.0.1", broker.broker().boundPort("SSL"), Duration.ofSeconds(10))) {
            raw.sendOnly(
                    new ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1"), (short) 3);
            assertThat(raw.isClosedByPeer(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void kcatProducesAndConsumesOverTls() throws Exception {
        Assumptions.assumeTrue(Files.isExecutable(KCAT), "kcat is not installed at " + KCAT);
        String topic = uniqueTopic("kcat-tls");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1);
        }
        List<String> common = List.of(
                KCAT.toString(),
                "-b",
                bootstrap("PEM"),
                "-X",
                "security.protocol=ssl",
                "-X",
                "ssl.ca.location=" + certs.caPem());
        List<String> produce = new ArrayList<>(common);
        produce.addAll(List.of("-P", "-t", topic));
        Process producer = new ProcessBuilder(produce).redirectErrorStream(true).start();
        producer.getOutputStream().write("one\ntwo\nthree\n".getBytes(UTF_8));
        producer.getOutputStream().close();
        String producerOutput = new String(producer.getInputStream().readAllBytes(), UTF_8);
        assertThat(producer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(producer.exitValue()).as(producerOutput).isZero();
        List<String> consume = new ArrayList<>(common);
        consume.addAll(List.of("-C", "-t", topic, "-o", "beginning", "-c", "3", "-e"));
        Process consumer = new ProcessBuilder(consume).start();
        String out = new String(consumer.getInputStream().readAllBytes(), UTF_8);
        assertThat(consumer.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(out.lines()).containsExactly("one", "two", "three");
    }
}
