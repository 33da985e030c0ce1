package io.varve.broker.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.config.BrokerConfig;
import io.varve.security.Principal;
import io.varve.security.sasl.AuthenticationFailureDelay;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** KIP-368 on the exchange: session lifetimes, their end, and what a re-authentication may not change. */
class SaslAuthenticatorTest {
    private static final String LISTENER = "SASL_PLAINTEXT";
    private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 5555);
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);

    private SaslAuthenticator authenticator(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        props.put("log.dirs", "/tmp/unused");
        props.put("listeners", LISTENER + "://127.0.0.1:0");
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256");
        props.put(
                "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"a-secret\""
                        + " user_bob=\"b-secret\";");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        SecurityConfig security = BrokerConfig.fromMap(props).security();
        return new SaslAuthenticator(
                security,
                (user, mechanism) -> Optional.empty(),
                new AuthenticationFailureDelay(0, 100, () -> 0L),
                () -> "nonce",
                null,
                nanos::get,
                () -> 1_800_000_000_000L);
    }

    private static SaslAuthenticator.Answer plain(
            SaslAuthenticator sasl, ConnectionAuthentication auth, String user, String password) {
        SaslAuthenticator.Answer handshake =
                sasl.handshake(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1, LISTENER, auth, PEER);
        assertThat(handshake.close()).isFalse();
        return sasl.authenticate(
                new SaslAuthenticateRequestData().setAuthBytes(("\0" + user + "\0" + password).getBytes(UTF_8)),
                (short) 2,
                LISTENER,
                auth,
                PEER);
    }

    private static SaslAuthenticateResponseData response(SaslAuthenticator.Answer answer) {
        return (SaslAuthenticateResponseData) answer.response();
    }

    @Test
    void withoutMaxReauthAPasswordSessionNeverEnds() {
        ConnectionAuthentication auth = new ConnectionAuthentication(SecurityProtocol.SASL_PLAINTEXT);
        assertThat(response(plain(authenticator(), auth, "alice", "a-secret")).sessionLifetimeMs())
                .isZero();
        nanos.addAndGet(TimeUnit.DAYS.toNanos(365));
        assertThat(auth.sessionExpired(nanos.get())).isFalse();
    }

    @Test
    void theSessionLastsConnectionsMaxReauthMsThenEnds() {
        SaslAuthenticator sasl = authenticator("listener.name.sasl_plaintext.plain.connections.max.reauth.ms", "5000");
        ConnectionAuthentication auth = new ConnectionAuthentication(SecurityProtocol.SASL_PLAINTEXT);
        assertThat(response(plain(sasl, auth, "alice", "a-secret")).sessionLifetimeMs())
                .isEqualTo(5000);
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(4999));
        assertThat(auth.sessionExpired(nanos.get())).isFalse();
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        assertThat(auth.sessionExpired(nanos.get())).isTrue();
    }

    @Test
    void aReauthenticationRenewsTheSessionForTheSamePrincipal() {
        SaslAuthenticator sasl = authenticator("connections.max.reauth.ms", "5000");
        ConnectionAuthentication auth = new ConnectionAuthentication(SecurityProtocol.SASL_PLAINTEXT);
        plain(sasl, auth, "alice", "a-secret");
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(4500));
        SaslAuthenticator.Answer again = plain(sasl, auth, "alice", "a-secret");
        assertThat(auth.reauthenticating()).isFalse();
        assertThat(response(again).errorCode()).isZero();
        assertThat(response(again).sessionLifetimeMs()).isEqualTo(5000);
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(4000));
        assertThat(auth.sessionExpired(nanos.get())).isFalse();
        assertThat(auth.principal()).isEqualTo(Principal.user("alice"));
    }

    @Test
    void aReauthenticationAsAnotherPrincipalOrWithAnotherMechanismIsRefusedAndCloses() {
        SaslAuthenticator sasl = authenticator("connections.max.reauth.ms", "5000");
        ConnectionAuthentication auth = new ConnectionAuthentication(SecurityProtocol.SASL_PLAINTEXT);
        plain(sasl, auth, "alice", "a-secret");
        SaslAuthenticator.Answer other = plain(sasl, auth, "bob", "b-secret");
        assertThat(other.close()).isTrue();
        assertThat(response(other).errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
        assertThat(response(other).errorMessage())
                .isEqualTo("Cannot change principals during re-authentication from User:alice to User:bob");
        assertThat(auth.principal()).isEqualTo(Principal.user("alice"));

        ConnectionAuthentication second = new ConnectionAuthentication(SecurityProtocol.SASL_PLAINTEXT);
        plain(sasl, second, "alice", "a-secret");
        SaslAuthenticator.Answer scram = sasl.handshake(
                new SaslHandshakeRequestData().setMechanism("SCRAM-SHA-256"), (short) 1, LISTENER, second, PEER);
        assertThat(scram.close()).isTrue();
        SaslAuthenticator.Answer v0 =
                sasl.handshake(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 0, LISTENER, second, PEER);
        assertThat(v0.close()).isTrue();
    }

    @Test
    void aWrongPasswordOnReauthenticationFailsAndCloses() {
        SaslAuthenticator sasl = authenticator("connections.max.reauth.ms", "5000");
        ConnectionAuthentication auth = new ConnectionAuthentication(SecurityProtocol.SASL_PLAINTEXT);
        plain(sasl, auth, "alice", "a-secret");
        SaslAuthenticator.Answer wrong = plain(sasl, auth, "alice", "changed");
        assertThat(wrong.close()).isTrue();
        assertThat(response(wrong).errorCode()).isEqualTo(Errors.SASL_AUTHENTICATION_FAILED.code());
    }

    @Test
    void saslAuthenticateV0CarriesNoLifetimeButTheSessionStillEnds() {
        SaslAuthenticator sasl = authenticator("connections.max.reauth.ms", "5000");
        ConnectionAuthentication auth = new ConnectionAuthentication(SecurityProtocol.SASL_PLAINTEXT);
        sasl.handshake(new SaslHandshakeRequestData().setMechanism("PLAIN"), (short) 1, LISTENER, auth, PEER);
        SaslAuthenticator.Answer answer = sasl.authenticate(
                new SaslAuthenticateRequestData().setAuthBytes("\0alice\0a-secret".getBytes(UTF_8)),
                (short) 0,
                LISTENER,
                auth,
                PEER);
        assertThat(response(answer).sessionLifetimeMs()).isZero();
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(5000));
        assertThat(auth.sessionExpired(nanos.get())).isTrue();
    }
}
