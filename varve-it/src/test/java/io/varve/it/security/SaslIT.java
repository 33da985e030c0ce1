package io.varve.it.security;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.security.SecurityClients.PLAIN_MODULE;
import static io.varve.it.security.SecurityClients.assertRefused;
import static io.varve.it.security.SecurityClients.roundTrip;
import static io.varve.it.security.SecurityClients.scram;
import static io.varve.it.security.SecurityClients.trusting;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.Kcat;
import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL listeners with kafka-clients, kcat and raw frames: PLAIN on SASL_PLAINTEXT and SASL_SSL (users from the
 * listener's JAAS text); a wrong password, an unknown user, a mechanism the listener does not offer and a request
 * before authentication refused with Kafka's errors; repeated failures of one address answered ever later.
 */
class SaslIT {
    @TempDir
    static Path dir;

    static TestCertificates certs;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        certs = TestCertificates.authority(dir.resolve("ca"), "Varve SASL CA");
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "PLAIN");
        props.put("sasl.jaas.config", PLAIN_MODULE + " required user_alice=\"alice-secret\" user_bob=\"bob-secret\";");
        props.put(
                "listener.name.sasl_ssl.ssl.keystore.location",
                certs.brokerKeystore("PKCS12").toString());
        props.put("listener.name.sasl_ssl.ssl.keystore.type", "PKCS12");
        props.put("listener.name.sasl_ssl.ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("connection.failed.authentication.delay.ms", "200");
        broker = TestBroker.start(dir.resolve("data"), props);
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static int port(String listener) {
        return broker.broker().boundPort(listener);
    }

    private static Map<String, Object> plain(String listener, String user, String password) throws Exception {
        Map<String, Object> c = SecurityClients.plain(broker.bootstrap(listener), listener, user, password);
        return listener.equals("SASL_SSL") ? trusting(c, certs, "PKCS12") : c;
    }

    @Test
    void plainUsersProduceAndConsumeOnSaslPlaintext() throws Exception {
        roundTrip(broker, plain("SASL_PLAINTEXT", "alice", "alice-secret"), 200, 1024);
    }

    @Test
    void plainUsersProduceAndConsumeOnSaslSsl() throws Exception {
        roundTrip(broker, plain("SASL_SSL", "bob", "bob-secret"), 200, 1024);
    }

    @Test
    void aWrongPasswordAndAnUnknownUserAreRefusedWithSaslAuthenticationFailed() throws Exception {
        for (Map<String, Object> c :
                List.of(plain("SASL_PLAINTEXT", "alice", "guess"), plain("SASL_SSL", "mallory", "alice-secret"))) {
            assertRefused(c)
                    .isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("Invalid username or password");
        }
    }

    @Test
    void aMechanismTheListenerDoesNotOfferIsRefused() throws Exception {
        Map<String, Object> c =
                scram(broker.bootstrap("SASL_PLAINTEXT"), "SASL_PLAINTEXT", "SCRAM-SHA-256", "alice", "alice-secret");
        assertRefused(c).isInstanceOf(UnsupportedSaslMechanismException.class);
    }

    @Test
    void aRequestBeforeAuthenticationGetsIllegalSaslStateAndTheConnectionCloses() throws Exception {
        try (RawClient raw = new RawClient(port("SASL_PLAINTEXT"))) {
            ApiVersionsResponseData versions = raw.send(
                    new ApiVersionsRequestData().setClientSoftwareName("raw").setClientSoftwareVersion("1"), (short) 3);
            assertThat(versions.apiKeys().find(ApiKeys.SASL_HANDSHAKE.id)).isNotNull();
            assertThat(versions.apiKeys().find(ApiKeys.SASL_AUTHENTICATE.id).maxVersion())
                    .isEqualTo((short) 2);
            DescribeClusterResponseData refused = raw.send(new DescribeClusterRequestData(), (short) 0);
            assertThat(refused.errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
            assertThat(raw.isClosedByPeer(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void aclApisAnswerSecurityDisabledWithoutAnAuthorizer() {
        try (Admin admin = broker.admin()) {
            assertThatThrownBy(() -> admin.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY)
                            .values()
                            .get(20, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.SecurityDisabledException.class);
        }
    }

    @Test
    void saslHandshakeOnAPlaintextListenerIsAnIllegalState() throws Exception {
        try (RawClient raw = new RawClient(broker.port())) {
            SaslHandshakeResponseData answer =
                    raw.send(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1);
            assertThat(answer.errorCode()).isEqualTo(Errors.ILLEGAL_SASL_STATE.code());
        }
    }

    /** Handshake then a PLAIN token; returns how long the answer took, in ms, and checks its error. */
    private static long plainAttemptMs(String password, Errors expected) throws Exception {
        try (RawClient raw = new RawClient(port("SASL_PLAINTEXT"))) {
            SaslHandshakeResponseData handshake =
                    raw.send(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1);
            assertThat(handshake.errorCode()).isZero();
            assertThat(handshake.mechanisms()).containsExactly("PLAIN");
            long start = System.nanoTime();
            SaslAuthenticateResponseData answer = raw.send(
                    new SaslAuthenticateRequestData().setAuthBytes(("\0bob\0" + password).getBytes(UTF_8)), (short) 2);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(answer.errorCode()).isEqualTo(expected.code());
            if (expected != Errors.NONE) {
                assertThat(answer.errorMessage()).isEqualTo("Authentication failed: Invalid username or password");
                assertThat(raw.isClosedByPeer(Duration.ofSeconds(10))).isTrue();
            } else {
                DescribeClusterResponseData cluster = raw.send(new DescribeClusterRequestData(), (short) 0);
                assertThat(cluster.errorCode()).isZero();
            }
            return tookMs;
        }
    }

    @Test
    void repeatedFailuresFromOneAddressAreAnsweredEverLaterAndASuccessResetsThem() throws Exception {
        plainAttemptMs("bob-secret", Errors.NONE);
        long first = plainAttemptMs("wrong-1", Errors.SASL_AUTHENTICATION_FAILED);
        plainAttemptMs("wrong-2", Errors.SASL_AUTHENTICATION_FAILED);
        long third = plainAttemptMs("wrong-3", Errors.SASL_AUTHENTICATION_FAILED);
        assertThat(first).isGreaterThanOrEqualTo(200);
        assertThat(third).isGreaterThanOrEqualTo(800);
        plainAttemptMs("bob-secret", Errors.NONE);
        assertThat(plainAttemptMs("wrong-4", Errors.SASL_AUTHENTICATION_FAILED)).isBetween(200L, 790L);
    }

    @Test
    void aVersionZeroHandshakeCarriesBareTokens() throws Exception {
        try (RawClient raw = new RawClient(port("SASL_PLAINTEXT"))) {
            SaslHandshakeResponseData handshake =
                    raw.send(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 0);
            assertThat(handshake.errorCode()).isZero();
            raw.writeFrame("\0alice\0alice-secret".getBytes(UTF_8));
            ByteBuffer token = raw.readFrame();
            assertThat(token.remaining()).isZero();
            DescribeClusterResponseData cluster = raw.send(new DescribeClusterRequestData(), (short) 0);
            assertThat(cluster.errorCode()).isZero();
        }
    }

    @Test
    void kcatProducesAndConsumesWithPlain() throws Exception {
        Kcat.assumeInstalled();
        String topic = uniqueTopic("kcat-sasl");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1);
        }
        List<String> common = List.of(
                "-b",
                "127.0.0.1:" + port("SASL_SSL"),
                "-X",
                "security.protocol=sasl_ssl",
                "-X",
                "ssl.ca.location=" + certs.caPem(),
                "-X",
                "sasl.mechanisms=PLAIN",
                "-X",
                "sasl.username=alice",
                "-X",
                "sasl.password=alice-secret");
        List<String> produce = new ArrayList<>(common);
        produce.addAll(List.of("-P", "-t", topic));
        Kcat.Result produced = Kcat.run(dir, "one\ntwo\n", produce);
        assertThat(produced.exitCode()).as(produced.stderr()).isZero();
        List<String> consume = new ArrayList<>(common);
        consume.addAll(List.of("-C", "-t", topic, "-o", "beginning", "-c", "2", "-e"));
        assertThat(Kcat.run(dir, null, consume).lines()).containsExactly("one", "two");
    }
}
