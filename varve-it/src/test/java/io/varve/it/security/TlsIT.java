package io.varve.it.security;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.security.SecurityClients.assertRefused;
import static io.varve.it.security.SecurityClients.roundTrip;
import static io.varve.it.security.SecurityClients.trusting;
import static io.varve.it.security.SecurityClients.withClientCertificate;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.it.Kcat;
import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.junit.jupiter.api.AfterAll;
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

    private static Map<String, Object> ssl(String listener) throws Exception {
        return trusting(SecurityClients.listener(broker.bootstrap(listener), "SSL"), certs, "JKS");
    }

    @Test
    void clientsProduceAndConsumeOverTlsWithoutAClientCertificate() throws Exception {
        roundTrip(broker, ssl("SSL"), 500, 2048);
    }

    @Test
    void aClientCertificateSignedByTheTrustedAuthorityIsAcceptedWhereOneIsRequired() throws Exception {
        roundTrip(
                broker,
                withClientCertificate(ssl("MTLS"), certs.clientKeystore("alice", "CN=Alice,O=Varve Test")),
                50,
                2048);
    }

    @Test
    void aPemKeystoreServesTls() throws Exception {
        roundTrip(broker, ssl("PEM"), 50, 2048);
    }

    @Test
    void aClientWithoutACertificateIsRefusedWhereOneIsRequired() throws Exception {
        assertRefused(ssl("MTLS")).isInstanceOf(SslAuthenticationException.class);
    }

    @Test
    void aClientCertificateFromAnotherAuthorityIsRefused() throws Exception {
        TestCertificates other = TestCertificates.authority(dir.resolve("other-ca"), "Someone Else's CA");
        Map<String, Object> c = withClientCertificate(ssl("MTLS"), other.clientKeystore("mallory", "CN=mallory"));
        assertRefused(c).isInstanceOf(SslAuthenticationException.class);
    }

    @Test
    void aClientThatDoesNotTrustTheBrokersAuthorityRefusesIt() throws Exception {
        TestCertificates other = TestCertificates.authority(dir.resolve("client-ca"), "Client Only CA");
        Map<String, Object> c = ssl("SSL");
        c.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, other.truststore("JKS").toString());
        assertRefused(c).isInstanceOf(SslAuthenticationException.class);
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
        Kcat.assumeInstalled();
        String topic = uniqueTopic("kcat-tls");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1);
        }
        List<String> common = List.of(
                "-b", broker.bootstrap("PEM"), "-X", "security.protocol=ssl", "-X", "ssl.ca.location=" + certs.caPem());
        List<String> produce = new ArrayList<>(common);
        produce.addAll(List.of("-P", "-t", topic));
        Kcat.Result produced = Kcat.run(dir, "one\ntwo\nthree\n", produce);
        assertThat(produced.exitCode()).as(produced.stderr()).isZero();
        List<String> consume = new ArrayList<>(common);
        consume.addAll(List.of("-C", "-t", topic, "-o", "beginning", "-c", "3", "-e"));
        assertThat(Kcat.run(dir, null, consume).lines()).containsExactly("one", "two", "three");
    }
}
