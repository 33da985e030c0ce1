package io.varve.broker.security;

import io.varve.security.Principal;
import io.varve.security.oauthbearer.OAuthBearerExchange;
import io.varve.security.sasl.AuthenticationFailureDelay;
import io.varve.security.sasl.DelegationTokenCredentials;
import io.varve.security.sasl.PlainExchange;
import io.varve.security.sasl.SaslAuthenticationFailure;
import io.varve.security.sasl.SaslServerExchange;
import io.varve.security.sasl.ScramCredentials;
import io.varve.security.sasl.ScramExchange;
import io.varve.security.sasl.ScramMechanism;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SASL exchange of a connection on a SASL listener, as Kafka runs it: SaslHandshake picks one of the listener's
 * {@code sasl.enabled.mechanisms}, then the mechanism's tokens travel in SaslAuthenticate requests (handshake v1) or,
 * after a v0 handshake, as bare size-prefixed frames (the pre-KIP-152 form). Until it succeeds only ApiVersions and
 * the exchange itself are served.
 *
 * <pre>
 * state (per connection)   request                    answer                              next
 * HANDSHAKE                SaslHandshake (enabled)    NONE + mechanisms                   AUTHENTICATE (v1) / RAW (v0)
 * HANDSHAKE                SaslHandshake (other)      UNSUPPORTED_SASL_MECHANISM, close
 * HANDSHAKE                SaslAuthenticate, other    ILLEGAL_SASL_STATE, close
 * AUTHENTICATE / RAW       token, exchange goes on    the mechanism's token               same
 * AUTHENTICATE / RAW       token, exchange complete   the last token                      authenticated
 * AUTHENTICATE / RAW       token, exchange fails      SASL_AUTHENTICATION_FAILED + message (RAW: none), close, delayed
 * AUTHENTICATE             SaslHandshake, other       ILLEGAL_SASL_STATE, close
 * authenticated            SaslHandshake v1 (same)    NONE + mechanisms                   re-authenticating (KIP-368)
 * authenticated            SaslHandshake v0 / other   ILLEGAL_SASL_STATE, close
 * re-authenticating        token, exchange complete   the last token + session lifetime   authenticated (new end)
 * re-authenticating        another principal, failure SASL_AUTHENTICATION_FAILED + message, close
 * authenticated, ended     any other request          (no answer) close
 * </pre>
 *
 * <p>A session ends after the earlier of the mechanism's {@code connections.max.reauth.ms} and its credential's
 * expiry (an OAUTHBEARER token's {@code exp}); SaslAuthenticate v1+ tells the client how long that is, and
 * kafka-clients re-authenticates before then.
 *
 * A failure is logged once with the peer's address, never with a secret, and its answer waits the peer's failure
 * delay ({@link AuthenticationFailureDelay}). Pure apart from the log: the dispatcher serialises and sends the answer.
 */
public final class SaslAuthenticator {
    private static final Logger log = LoggerFactory.getLogger(SaslAuthenticator.class);

    /** What to send: a response message (or a raw token), whether to close after it, how long to hold it first. */
    public record Answer(ApiMessage response, byte[] rawToken, boolean close, long delayMs) {
        static Answer of(ApiMessage response) {
            return new Answer(response, null, false, 0);
        }

        static Answer closing(ApiMessage response, long delayMs) {
            return new Answer(response, null, true, delayMs);
        }
    }

    /** One connection's exchange after its handshake. */
    static final class Session {
        final SaslServerExchange exchange;
        final boolean raw;

        Session(SaslServerExchange exchange, boolean raw) {
            this.exchange = exchange;
            this.raw = raw;
        }
    }

    private final SecurityConfig security;
    private final ScramCredentials scramCredentials;
    /** Null when delegation tokens are off. */
    private final DelegationTokenCredentials delegationTokens;

    private final AuthenticationFailureDelay failureDelay;
    private final Supplier<String> serverNonces;
    /** Null when no listener enables OAUTHBEARER. */
    private final OAuthBearerValidators oauthBearer;
    /** Session ends are kept on the monotonic clock; credentials (tokens) expire on the wall clock. */
    private final LongSupplier nanoClock;

    private final LongSupplier wallClockMs;

    public SaslAuthenticator(
            SecurityConfig security,
            ScramCredentials scramCredentials,
            AuthenticationFailureDelay failureDelay,
            OAuthBearerValidators oauthBearer) {
        this(security, scramCredentials, null, failureDelay, oauthBearer);
    }

    /** @param delegationTokens the tokens {@code tokenauth=true} SCRAM clients prove; null: tokens are off */
    public SaslAuthenticator(
            SecurityConfig security,
            ScramCredentials scramCredentials,
            DelegationTokenCredentials delegationTokens,
            AuthenticationFailureDelay failureDelay,
            OAuthBearerValidators oauthBearer) {
        this(
                security,
                scramCredentials,
                delegationTokens,
                failureDelay,
                randomNonces(),
                oauthBearer,
                System::nanoTime,
                System::currentTimeMillis);
    }

    SaslAuthenticator(
            SecurityConfig security,
            ScramCredentials scramCredentials,
            AuthenticationFailureDelay failureDelay,
            Supplier<String> serverNonces,
            OAuthBearerValidators oauthBearer,
            LongSupplier nanoClock,
            LongSupplier wallClockMs) {
        this(security, scramCredentials, null, failureDelay, serverNonces, oauthBearer, nanoClock, wallClockMs);
    }

    SaslAuthenticator(
            SecurityConfig security,
            ScramCredentials scramCredentials,
            DelegationTokenCredentials delegationTokens,
            AuthenticationFailureDelay failureDelay,
            Supplier<String> serverNonces,
            OAuthBearerValidators oauthBearer,
            LongSupplier nanoClock,
            LongSupplier wallClockMs) {
        this.security = security;
        this.delegationTokens = delegationTokens;
        this.scramCredentials = scramCredentials;
        this.failureDelay = failureDelay;
        this.serverNonces = serverNonces;
        this.oauthBearer = oauthBearer;
        this.nanoClock = nanoClock;
        this.wallClockMs = wallClockMs;
    }

    private static Supplier<String> randomNonces() {
        SecureRandom random = new SecureRandom();
        return () -> {
            byte[] bytes = new byte[24];
            random.nextBytes(bytes);
            return Base64.getEncoder().withoutPadding().encodeToString(bytes);
        };
    }

    /** True when the connection's next frame is a bare token rather than a Kafka request (after a v0 handshake). */
    public static boolean expectsRawToken(ConnectionAuthentication auth) {
        Session session = auth.saslSession();
        return auth.saslPending() && session != null && session.raw;
    }

    public Answer handshake(
            SaslHandshakeRequestData request,
            short version,
            String listenerName,
            ConnectionAuthentication auth,
            InetSocketAddress peer) {
        ListenerSecurity.Sasl sasl = security.forListener(listenerName).sasl();
        SaslHandshakeResponseData response = new SaslHandshakeResponseData().setMechanisms(sasl.enabledMechanisms());
        if (auth.saslSession() != null) {
            return Answer.closing(response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()), 0);
        }
        String mechanism = request.mechanism();
        boolean reauthentication = !auth.saslPending();
        if (reauthentication && (version == 0 || !mechanism.equals(auth.saslMechanism()))) {
            log.warn(
                    "Closing connection of {} from {} on listener {}: re-authentication {}",
                    auth.principal(),
                    peer,
                    listenerName,
                    version == 0
                            ? "needs SaslHandshake v1"
                            : "asked for " + mechanism + ", but the session was authenticated with "
                                    + auth.saslMechanism());
            return Answer.closing(response.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()), 0);
        }
        if (!sasl.enabledMechanisms().contains(mechanism)) {
            log.warn(
                    "SASL handshake from {} on listener {} asked for mechanism {}, which is not enabled ({})",
                    peer,
                    listenerName,
                    mechanism,
                    sasl.enabledMechanisms());
            return Answer.closing(response.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()), 0);
        }
        SaslServerExchange exchange =
                switch (mechanism) {
                    case PlainExchange.MECHANISM -> new PlainExchange(sasl.plainUsers());
                    case OAuthBearerExchange.MECHANISM ->
                        new OAuthBearerExchange(oauthBearer.forListener(listenerName));
                    default ->
                        new ScramExchange(
                                ScramMechanism.forName(mechanism).orElseThrow(),
                                scramCredentials,
                                serverNonces,
                                delegationTokens);
                };
        auth.saslSession(new Session(exchange, version == 0));
        return Answer.of(response.setErrorCode(Errors.NONE.code()));
    }

    public Answer authenticate(
            SaslAuthenticateRequestData request,
            short version,
            String listenerName,
            ConnectionAuthentication auth,
            InetSocketAddress peer) {
        Session session = auth.saslSession();
        if (session == null || session.raw) {
            return Answer.closing(
                    new SaslAuthenticateResponseData()
                            .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                            .setErrorMessage("SaslAuthenticate before a SaslHandshake (v1) chose a mechanism"),
                    0);
        }
        try {
            byte[] token = session.exchange.evaluate(request.authBytes());
            long sessionLifetimeMs = 0;
            if (session.exchange.complete()) {
                sessionLifetimeMs = succeeded(session, listenerName, auth, peer);
            }
            SaslAuthenticateResponseData response = new SaslAuthenticateResponseData()
                    .setErrorCode(Errors.NONE.code())
                    .setAuthBytes(token);
            if (version >= 1) {
                // v0 has no field for it: such a client cannot re-authenticate, and is closed when the session ends
                response.setSessionLifetimeMs(sessionLifetimeMs);
            }
            return Answer.of(response);
        } catch (SaslAuthenticationFailure e) {
            return Answer.closing(
                    new SaslAuthenticateResponseData()
                            .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                            .setErrorMessage(e.getMessage()),
                    failed(session, listenerName, peer, e));
        }
    }

    /** A bare token after a v0 handshake. A failure has no way to say why: the connection just closes. */
    public Answer rawToken(byte[] token, String listenerName, ConnectionAuthentication auth, InetSocketAddress peer) {
        Session session = auth.saslSession();
        try {
            byte[] answer = session.exchange.evaluate(token);
            if (session.exchange.complete()) {
                succeeded(session, listenerName, auth, peer);
            }
            return new Answer(null, answer, false, 0);
        } catch (SaslAuthenticationFailure e) {
            return new Answer(null, null, true, failed(session, listenerName, peer, e));
        }
    }

    /** The answer to any other request before authentication: ILLEGAL_SASL_STATE, then the connection closes. */
    public static void logIllegalState(String what, String listenerName, InetSocketAddress peer) {
        log.warn("Closing connection from {} on SASL listener {}: {} before authentication", peer, listenerName, what);
    }

    /**
     * Completes a successful exchange; returns the session's lifetime in ms (0: no end). The end is the earlier of the
     * mechanism's {@code connections.max.reauth.ms} and the credential's expiry, as in Kafka. A re-authentication must
     * prove the same principal.
     */
    private long succeeded(Session session, String listenerName, ConnectionAuthentication auth, InetSocketAddress peer)
            throws SaslAuthenticationFailure {
        Principal principal = session.exchange.principal();
        boolean reauthentication = !auth.saslPending();
        if (reauthentication && !principal.equals(auth.principal())) {
            throw new SaslAuthenticationFailure(
                    "Cannot change principals during re-authentication from " + auth.principal() + " to " + principal);
        }
        long maxReauthMs = security.forListener(listenerName).sasl().maxReauthMs(session.exchange.mechanism());
        OptionalLong credentialExpiryMs = session.exchange.credentialExpiryMs();
        long lifetimeMs = 0;
        if (credentialExpiryMs.isPresent()) {
            long untilExpiryMs = Math.max(0, credentialExpiryMs.getAsLong() - wallClockMs.getAsLong());
            lifetimeMs = maxReauthMs > 0 ? Math.min(untilExpiryMs, maxReauthMs) : untilExpiryMs;
        } else if (maxReauthMs > 0) {
            lifetimeMs = maxReauthMs;
        }
        boolean expires = lifetimeMs > 0 || credentialExpiryMs.isPresent();
        long expiryNanos = expires
                ? nanoClock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(lifetimeMs)
                : ConnectionAuthentication.NO_EXPIRY;
        auth.saslAuthenticated(principal, session.exchange.mechanism(), expiryNanos);
        failureDelay.onSuccess(address(peer));
        log.debug(
                "{} {} with {} from {} on listener {}; session lifetime {} ms",
                principal,
                reauthentication ? "re-authenticated" : "authenticated",
                session.exchange.mechanism(),
                peer,
                listenerName,
                lifetimeMs);
        return lifetimeMs;
    }

    /**
     * Closes a connection whose session ended without re-authentication (KIP-368), as Kafka does at its next request.
     */
    public static void logExpiredSession(ConnectionAuthentication auth, String listenerName, InetSocketAddress peer) {
        log.info(
                "Closing connection of {} from {} on listener {}: its SASL session ended without re-authentication",
                auth.principal(),
                peer,
                listenerName);
    }

    private long failed(Session session, String listenerName, InetSocketAddress peer, SaslAuthenticationFailure e) {
        long delayMs = failureDelay.onFailure(address(peer));
        log.warn(
                "Failed authentication with {} ({}) on listener {} using {}; answering in {} ms",
                peer,
                e.logMessage(),
                listenerName,
                session.exchange.mechanism(),
                delayMs);
        return delayMs;
    }

    private static String address(InetSocketAddress peer) {
        return peer.getAddress() != null ? peer.getAddress().getHostAddress() : peer.getHostString();
    }
}
