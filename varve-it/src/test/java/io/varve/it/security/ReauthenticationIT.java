package io.varve.it.security;

import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static io.varve.it.security.SecurityClients.bearerExchange;
import static io.varve.it.security.SecurityClients.oauthBearer;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import io.varve.it.security.TestIdentityProvider.Kind;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-368 with kafka-clients: sessions bounded by {@code connections.max.reauth.ms} (SCRAM) and by the token's expiry
 * (OAUTHBEARER), renewed transparently by the client while it produces; a SCRAM user removed meanwhile is shut out at
 * its next re-authentication; a connection that does not re-authenticate is closed at its first request after the
 * end.
 */
class ReauthenticationIT {
    private static final long SCRAM_REAUTH_MS = 2000;
    private static final long OAUTH_REAUTH_MS = 3000;
    private static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    @TempDir
    static Path dir;

    static TestIdentityProvider idp;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        idp = new TestIdentityProvider();
        idp.client("orders", Kind.RS256);
        System.setProperty(ALLOWED_URLS, idp.url("/token"));
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "SCRAM-SHA-256,OAUTHBEARER");
        props.put(
                "listener.name.sasl_plaintext.oauthbearer.sasl.server.callback.handler.class",
                "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler");
        props.put("sasl.oauthbearer.jwks.endpoint.url", idp.url("/jwks"));
        props.put("sasl.oauthbearer.expected.audience", TestIdentityProvider.AUDIENCE);
        props.put("connections.max.reauth.ms", String.valueOf(SCRAM_REAUTH_MS));
        props.put(
                "listener.name.sasl_plaintext.oauthbearer.connections.max.reauth.ms", String.valueOf(OAUTH_REAUTH_MS));
        props.put("connection.failed.authentication.delay.ms", "0");
        broker = TestBroker.start(dir.resolve("data"), props);
        try (Admin admin = broker.admin()) {
            for (String user : List.of("alice", "bob")) {
                admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(
                                user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096), user + "-secret")))
                        .all()
                        .get(20, TimeUnit.SECONDS);
            }
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
        if (idp != null) {
            idp.close();
        }
        System.clearProperty(ALLOWED_URLS);
    }

    private static int saslPort() {
        return broker.broker().boundPort("SASL_PLAINTEXT");
    }

    private static Map<String, Object> scram(String user) {
        Map<String, Object> c = SecurityClients.scram(
                broker.bootstrap("SASL_PLAINTEXT"), "SASL_PLAINTEXT", "SCRAM-SHA-256", user, user + "-secret");
        c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
        c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return c;
    }

    private static double reauthentications(KafkaProducer<byte[], byte[]> producer) {
        return metric(producer, "successful-reauthentication-total");
    }

    /** A producer-wide counter of kafka-clients' network layer. */
    private static double metric(KafkaProducer<byte[], byte[]> producer, String name) {
        double total = 0;
        for (Map.Entry<org.apache.kafka.common.MetricName, ? extends Metric> e :
                producer.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals("producer-metrics")) {
                total += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return total;
    }

    /** Sends one record every 50 ms until {@code reauthentications} re-authentications happened; all must land. */
    private static void produceAcross(Map<String, Object> client, int reauthentications) throws Exception {
        String topic = uniqueTopic("reauth");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1);
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(client)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int sent = 0;
            while (reauthentications(producer) < reauthentications && System.nanoTime() < deadline) {
                RecordMetadata metadata = producer.send(new ProducerRecord<>(topic, ("v" + sent).getBytes(UTF_8)))
                        .get(15, TimeUnit.SECONDS);
                assertThat(metadata.offset()).isEqualTo(sent);
                sent++;
                Thread.sleep(50); // pacing the load, not synchronising
            }
            assertThat(reauthentications(producer)).isGreaterThanOrEqualTo(reauthentications);
        }
    }

    @Test
    void aScramProducerReauthenticatesTransparentlyAcrossSeveralSessions() throws Exception {
        produceAcross(scram("alice"), 3);
    }

    @Test
    void anOAuthBearerProducerReauthenticatesWithRefreshedTokens() throws Exception {
        idp.lifetimeSeconds(8);
        int before = idp.tokensIssued();
        Map<String, Object> c =
                oauthBearer(broker.bootstrap("SASL_PLAINTEXT"), "SASL_PLAINTEXT", idp.url("/token"), "orders");
        c.put(SaslConfigs.SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS, "0");
        c.put(SaslConfigs.SASL_LOGIN_REFRESH_BUFFER_SECONDS, "0");
        produceAcross(c, 4);
        assertThat(idp.tokensIssued() - before).isGreaterThanOrEqualTo(2);
    }

    @Test
    void theSessionLifetimeIsTheEarlierOfTheSettingAndTheTokensExpiry() throws Exception {
        assertThat(oauthLifetimeMs(idp.token(Kind.RS256, "orders", 600))).isEqualTo(OAUTH_REAUTH_MS);
        long shortLived = oauthLifetimeMs(idp.token(Kind.RS256, "orders", 2));
        assertThat(shortLived).isPositive().isLessThanOrEqualTo(2000);
    }

    private static long oauthLifetimeMs(String token) throws IOException {
        try (RawClient raw = new RawClient(saslPort())) {
            return bearerExchange(raw, "", token).sessionLifetimeMs();
        }
    }

    @Test
    void aRemovedScramUserIsShutOutAtItsNextReauthentication() throws Exception {
        String topic = uniqueTopic("reauth-removed");
        try (Admin admin = broker.admin()) {
            createTopic(admin, topic, 1);
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(scram("bob"))) {
            producer.send(new ProducerRecord<>(topic, "before".getBytes(UTF_8))).get(15, TimeUnit.SECONDS);
            try (Admin admin = broker.admin()) {
                admin.alterUserScramCredentials(
                                List.of(new UserScramCredentialDeletion("bob", ScramMechanism.SCRAM_SHA_256)))
                        .all()
                        .get(20, TimeUnit.SECONDS);
            }
            // the client re-authenticates at its next request after the session's end, and is refused
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> {
                        producer.send(new ProducerRecord<>(topic, "after".getBytes(UTF_8)));
                        return metric(producer, "failed-reauthentication-total") >= 1;
                    });
            // and its reconnections fail to authenticate: nothing more is written as bob
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "refused".getBytes(UTF_8)))
                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOfAny(AuthenticationException.class, TimeoutException.class);
            assertThat(metric(producer, "failed-authentication-total")).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void aConnectionThatDoesNotReauthenticateIsClosedAtItsFirstRequestAfterTheEnd() throws Exception {
        try (RawClient raw = new RawClient(saslPort())) {
            SaslAuthenticateResponseData answer = bearerExchange(raw, "", idp.token(Kind.RS256, "orders", 600));
            long authenticatedNanos = System.nanoTime();
            assertThat(answer.sessionLifetimeMs()).isEqualTo(OAUTH_REAUTH_MS);
            DescribeClusterResponseData cluster = raw.send(new DescribeClusterRequestData(), (short) 0);
            assertThat(cluster.errorCode()).isZero();
            await().atMost(Duration.ofSeconds(20))
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        try {
                            raw.send(new DescribeClusterRequestData(), (short) 0);
                            return false;
                        } catch (IOException closed) {
                            return true;
                        }
                    });
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - authenticatedNanos))
                    .isGreaterThanOrEqualTo(OAUTH_REAUTH_MS);
        }
    }
}
