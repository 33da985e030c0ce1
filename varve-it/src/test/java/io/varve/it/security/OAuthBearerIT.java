package io.varve.it.security;

import static io.varve.it.security.SecurityClients.OAUTHBEARER_MODULE;
import static io.varve.it.security.SecurityClients.assertRefused;
import static io.varve.it.security.SecurityClients.bearerExchange;
import static io.varve.it.security.SecurityClients.oauthBearer;
import static io.varve.it.security.SecurityClients.roundTrip;
import static io.varve.it.security.SecurityClients.trusting;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import io.varve.it.security.TestIdentityProvider.Kind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SASL/OAUTHBEARER with kafka-clients' own OAuthBearerLoginCallbackHandler against an identity provider on loopback
 * (client-credentials grant): signed tokens checked against the provider's JWKS over HTTP (SASL_PLAINTEXT) and from a
 * {@code file:} copy (SASL_SSL); a forged signature, a wrong audience and an expired token refused with
 * SASL_AUTHENTICATION_FAILED, after the invalid_token answer RFC 7628 prescribes.
 */
class OAuthBearerIT {
    private static final String VALIDATOR =
            "org.apache.kafka.common.security.oauthbearer.OAuthBearerValidatorCallbackHandler";
    /** Kafka 4's clients refuse token endpoints not listed in this system property. */
    private static final String ALLOWED_URLS = "org.apache.kafka.sasl.oauthbearer.allowed.urls";

    @TempDir
    static Path dir;

    static TestIdentityProvider idp;
    static TestCertificates certs;
    static TestBroker broker;

    @BeforeAll
    static void start() throws Exception {
        idp = new TestIdentityProvider();
        idp.client("alice", Kind.RS256);
        idp.client("bob", Kind.ES256);
        idp.client("mallory", Kind.FORGED);
        idp.client("billing-service", Kind.WRONG_AUDIENCE);
        System.setProperty(ALLOWED_URLS, idp.url("/token"));
        certs = TestCertificates.authority(dir.resolve("ca"), "Varve OAuth CA");
        Path jwksFile = dir.resolve("jwks.json");
        Files.writeString(jwksFile, idp.jwks());
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "OAUTHBEARER");
        for (String listener : List.of("sasl_plaintext", "sasl_ssl")) {
            props.put("listener.name." + listener + ".oauthbearer.sasl.server.callback.handler.class", VALIDATOR);
            props.put("listener.name." + listener + ".oauthbearer.sasl.jaas.config", OAUTHBEARER_MODULE + " required;");
        }
        props.put("sasl.oauthbearer.jwks.endpoint.url", idp.url("/jwks"));
        props.put(
                "listener.name.sasl_ssl.sasl.oauthbearer.jwks.endpoint.url",
                jwksFile.toUri().toString());
        props.put("sasl.oauthbearer.expected.audience", TestIdentityProvider.AUDIENCE);
        props.put("sasl.oauthbearer.expected.issuer", TestIdentityProvider.ISSUER);
        props.put(
                "listener.name.sasl_ssl.ssl.keystore.location",
                certs.brokerKeystore("PKCS12").toString());
        props.put("listener.name.sasl_ssl.ssl.keystore.type", "PKCS12");
        props.put("listener.name.sasl_ssl.ssl.keystore.password", TestCertificates.PASSWORD);
        props.put("connection.failed.authentication.delay.ms", "0");
        broker = TestBroker.start(dir.resolve("data"), props);
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

    private static int port(String listener) {
        return broker.broker().boundPort(listener);
    }

    static Map<String, Object> oauth(String listener, String clientId) throws Exception {
        Map<String, Object> c = oauthBearer(broker.bootstrap(listener), listener, idp.url("/token"), clientId);
        return listener.equals("SASL_SSL") ? trusting(c, certs, "PKCS12") : c;
    }

    @Test
    void anRs256TokenFromTheTokenEndpointProducesAndConsumesWithTheJwksOverHttp() throws Exception {
        roundTrip(broker, oauth("SASL_PLAINTEXT", "alice"), 100, 512);
    }

    @Test
    void anEs256TokenProducesAndConsumesOnSaslSslWithTheJwksFromAFile() throws Exception {
        roundTrip(broker, oauth("SASL_SSL", "bob"), 100, 512);
    }

    @Test
    void aForgedSignatureAndAWrongAudienceAreRefusedWithSaslAuthenticationFailed() throws Exception {
        for (String clientId : List.of("mallory", "billing-service")) {
            assertRefused(oauth("SASL_PLAINTEXT", clientId))
                    .as(clientId)
                    .isInstanceOf(SaslAuthenticationException.class)
                    .hasMessageContaining("invalid_token");
        }
    }

    /** The exchange on the wire, with tokens kafka-clients would not send (its own login refuses expired ones). */
    @Test
    void anExpiredTokenGetsTheInvalidTokenAnswerThenSaslAuthenticationFailed() throws Exception {
        String expired = idp.token(Kind.RS256, "alice", -120);
        try (RawClient raw = new RawClient(port("SASL_PLAINTEXT"))) {
            SaslHandshakeResponseData handshake =
                    raw.send(new SaslHandshakeRequestData().setMechanism("OAUTHBEARER"), (short) 1);
            assertThat(handshake.errorCode()).isZero();
            assertThat(handshake.mechanisms()).containsExactly("OAUTHBEARER");
            SaslAuthenticateResponseData challenge = raw.send(
                    new SaslAuthenticateRequestData()
                            .setAuthBytes(("n,,\u0001auth=Bearer " + expired + "\u0001\u0001").getBytes(UTF_8)),
                    (short) 2);
            assertThat(challenge.errorCode()).isZero();
            assertThat(new String(challenge.authBytes(), UTF_8)).isEqualTo("{\"status\":\"invalid_token\"}");
            SaslAuthenticateResponseData refused =
                    raw.send(new SaslAuthenticateRequestData().setAuthBytes(new byte[] {1}), (short) 2);
            assertThat(refused.errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
            assertThat(refused.errorMessage()).isEqualTo("{\"status\":\"invalid_token\"}");
            assertThat(raw.isClosedByPeer(Duration.ofSeconds(10))).isTrue();
        }
    }

    @Test
    void aValidTokenOnTheWireAuthenticatesWithAnAuthorizationIdEqualToItsSubject() throws Exception {
        String valid = idp.token(Kind.RS256, "alice", 300);
        try (RawClient raw = new RawClient(port("SASL_PLAINTEXT"))) {
            assertThat(bearerExchange(raw, "alice", valid).authBytes()).isEmpty();
        }
    }

    /** Key rotation: a token under a key id the broker has not seen makes it read the JWKS again at once. */
    @Test
    void aTokenUnderARotatedKeyIsAcceptedOnceTheBrokerReadsTheNewKeySet() throws Exception {
        String token = idp.token(Kind.ROTATED, "alice", 300);
        assertThat(authenticate(token)).isEqualTo("{\"status\":\"invalid_token\"}");
        idp.publishRotatedKey();
        // the unknown kid of the first attempt or of a later one brings the new set in, long before refresh.ms
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> authenticate(token).isEmpty());
    }

    /** One OAUTHBEARER exchange on SASL_PLAINTEXT: the server's first answer, empty when the token was accepted. */
    private static String authenticate(String token) throws Exception {
        try (RawClient raw = new RawClient(port("SASL_PLAINTEXT"))) {
            return new String(bearerExchange(raw, "", token).authBytes(), UTF_8);
        }
    }
}
