package io.varve.it.security;

import static io.varve.it.ClientSupport.TIMEOUT;
import static io.varve.it.ClientSupport.createTopic;
import static io.varve.it.ClientSupport.uniqueTopic;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.io.IOException;
import java.io.Writer;
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
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.assertj.core.api.AbstractThrowableAssert;

/**
 * The client side of the security tests: kafka-clients settings for a listener per mechanism (PLAIN, SCRAM,
 * OAUTHBEARER, a trust store and a client certificate for TLS), an admin client that gives up quickly, the check that
 * a client is refused, and a produce-and-consume round trip through one client's settings.
 */
public final class SecurityClients {
    public static final String PLAIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";
    public static final String SCRAM_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";
    public static final String OAUTHBEARER_MODULE =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule";
    public static final String OAUTHBEARER_LOGIN_HANDLER =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";

    private SecurityClients() {}

    /** Bootstrap and security protocol, nothing else: the base of the settings below (a mutable map). */
    public static Map<String, Object> listener(String bootstrap, String securityProtocol) {
        Map<String, Object> c = new HashMap<>();
        c.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        c.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, securityProtocol);
        return c;
    }

    /** SASL/PLAIN as {@code user}. */
    public static Map<String, Object> plain(String bootstrap, String securityProtocol, String user, String password) {
        return sasl(
                bootstrap,
                securityProtocol,
                "PLAIN",
                PLAIN_MODULE + " required username=\"" + user + "\" password=\"" + password + "\";");
    }

    /** SASL/SCRAM ({@code SCRAM-SHA-256} or {@code SCRAM-SHA-512}) as {@code user}. */
    public static Map<String, Object> scram(
            String bootstrap, String securityProtocol, String mechanism, String user, String password) {
        return sasl(
                bootstrap,
                securityProtocol,
                mechanism,
                SCRAM_MODULE + " required username=\"" + user + "\" password=\"" + password + "\";");
    }

    /**
     * SASL/OAUTHBEARER with kafka-clients' own login handler, which fetches a token from {@code tokenEndpoint} with
     * the client-credentials grant as {@code clientId} (its secret {@code <clientId>-secret}, as the test identity
     * provider registers it).
     */
    public static Map<String, Object> oauthBearer(
            String bootstrap, String securityProtocol, String tokenEndpoint, String clientId) {
        Map<String, Object> c = sasl(
                bootstrap,
                securityProtocol,
                "OAUTHBEARER",
                OAUTHBEARER_MODULE + " required clientId=\"" + clientId + "\" clientSecret=\"" + clientId
                        + "-secret\";");
        c.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, OAUTHBEARER_LOGIN_HANDLER);
        c.put(SaslConfigs.SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, tokenEndpoint);
        return c;
    }

    private static Map<String, Object> sasl(String bootstrap, String securityProtocol, String mechanism, String jaas) {
        Map<String, Object> c = listener(bootstrap, securityProtocol);
        c.put(SaslConfigs.SASL_MECHANISM, mechanism);
        c.put(SaslConfigs.SASL_JAAS_CONFIG, jaas);
        return c;
    }

    /** Adds a trust store of {@code certs}' authority ({@code storeType} PKCS12 or JKS) to {@code c}; returns it. */
    public static Map<String, Object> trusting(Map<String, Object> c, TestCertificates certs, String storeType)
            throws Exception {
        c.put(
                SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG,
                certs.truststore(storeType).toString());
        c.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, storeType);
        c.put(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        return c;
    }

    /** Adds a client certificate (a PKCS12 key store made by {@link TestCertificates}) to {@code c}; returns it. */
    public static Map<String, Object> withClientCertificate(Map<String, Object> c, Path keystore) {
        c.put(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG, keystore.toString());
        c.put(SslConfigs.SSL_KEYSTORE_TYPE_CONFIG, "PKCS12");
        c.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        c.put(SslConfigs.SSL_KEY_PASSWORD_CONFIG, TestCertificates.PASSWORD);
        return c;
    }

    /** Writes {@code c} as a properties file, as Kafka's tools read it ({@code --command-config}); returns the file. */
    public static Path writeProperties(Path file, Map<String, Object> c) throws IOException {
        Properties p = new Properties();
        c.forEach((k, v) -> p.setProperty(k, String.valueOf(v)));
        try (Writer w = Files.newBufferedWriter(file, UTF_8)) {
            p.store(w, null);
        }
        return file;
    }

    /** An admin client with {@code c}'s settings that gives up within 15 s: a refused login fails the call early. */
    public static Admin admin(Map<String, Object> c) {
        Properties p = new Properties();
        p.putAll(c);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        return Admin.create(p);
    }

    /**
     * Asserts that a client with {@code c}'s settings cannot describe the cluster, and returns an assertion on why
     * (the cause of the failed call: a SaslAuthenticationException, an SslAuthenticationException …).
     */
    public static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(Map<String, Object> c) {
        Throwable thrown;
        try (Admin admin = admin(c)) {
            thrown = catchThrowable(() -> admin.describeCluster().clusterId().get(20, TimeUnit.SECONDS));
        }
        return assertThat(thrown).isInstanceOf(ExecutionException.class).cause();
    }

    /**
     * On a fresh connection of a SASL listener: SaslHandshake for OAUTHBEARER, then the client's first message (RFC
     * 7628) carrying {@code token} for {@code authorizationId} (empty: none); returns the server's answer, asserted to
     * carry no error code (an invalid token is answered with a challenge first).
     */
    public static SaslAuthenticateResponseData bearerExchange(RawClient raw, String authorizationId, String token)
            throws IOException {
        raw.send(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"), (short) 1);
        String message = "n," + (authorizationId.isEmpty() ? "" : "a=" + authorizationId) + ",\u0001auth=Bearer "
                + token + "\u0001\u0001";
        SaslAuthenticateResponseData answer =
                raw.send(new SaslAuthenticateRequestData().setAuthBytes(message.getBytes(UTF_8)), (short) 2);
        assertThat(answer.errorCode()).isZero();
        return answer;
    }

    /**
     * Through {@code client}'s settings only: creates a topic of two partitions, produces {@code count} records of
     * {@code valueBytes} bytes, reads them back in a consumer group and commits; asserts that every record came back.
     */
    public static List<ConsumerRecord<byte[], byte[]>> roundTrip(
            TestBroker broker, Map<String, Object> client, int count, int valueBytes) throws Exception {
        String topic = uniqueTopic("secured");
        try (Admin admin = admin(client)) {
            createTopic(admin, topic, 2);
        }
        try (KafkaProducer<byte[], byte[]> producer = broker.producer(client)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, ("k" + i).getBytes(UTF_8), new byte[valueBytes]));
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
        assertThat(records).allSatisfy(r -> assertThat(r.value()).hasSize(valueBytes));
        return records;
    }
}
