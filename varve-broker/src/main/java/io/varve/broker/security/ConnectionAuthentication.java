package io.varve.broker.security;

import io.varve.security.Principal;

/**
 * Who a connection is, as far as it has proven: its listener's protocol and its principal, which TLS sets from the
 * client certificate once the handshake completes and SASL sets once the exchange succeeds. A SASL connection is
 * {@link #saslPending()} until then, and only the exchange's own requests are served to it. Once authenticated, a
 * SASL session may have an end (KIP-368: {@code connections.max.reauth.ms}, a token's expiry); the client then
 * re-authenticates with a new SaslHandshake on the same connection ({@link #reauthenticating()}), or is closed at its
 * next request after the end. One per connection; its requests are handled one at a time, so the fields change
 * between requests only (volatile for the request threads that read them in turn).
 */
public final class ConnectionAuthentication {
    /** A session without an end. */
    static final long NO_EXPIRY = Long.MAX_VALUE;

    private final SecurityProtocol protocol;
    private volatile Principal principal = Principal.ANONYMOUS;
    private volatile boolean saslComplete;
    /** The SASL exchange in progress (first or re-authentication), owned by {@link SaslAuthenticator}. */
    private volatile SaslAuthenticator.Session saslSession;

    private volatile String saslMechanism;
    /** {@link System#nanoTime()} when the session ends; {@link #NO_EXPIRY} when it does not. */
    private volatile long sessionExpiryNanos = NO_EXPIRY;

    public ConnectionAuthentication(SecurityProtocol protocol) {
        this.protocol = protocol;
    }

    public static ConnectionAuthentication plaintext() {
        return new ConnectionAuthentication(SecurityProtocol.PLAINTEXT);
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    public Principal principal() {
        return principal;
    }

    /** True on a SASL listener until the client has authenticated. */
    public boolean saslPending() {
        return protocol.sasl() && !saslComplete;
    }

    /** True while an authenticated SASL connection runs a new exchange (KIP-368). */
    public boolean reauthenticating() {
        return saslComplete && saslSession != null;
    }

    /** True once an authenticated SASL session's end has passed (and no re-authentication has renewed it). */
    public boolean sessionExpired(long nowNanos) {
        long expiry = sessionExpiryNanos;
        return saslComplete && expiry != NO_EXPIRY && nowNanos - expiry >= 0;
    }

    /** The TLS handshake's principal; on SASL_SSL the SASL exchange names the principal instead. */
    public void tlsAuthenticated(Principal certificatePrincipal) {
        if (!protocol.sasl()) {
            principal = certificatePrincipal;
        }
    }

    void saslAuthenticated(Principal saslPrincipal, String mechanism, long expiryNanos) {
        principal = saslPrincipal;
        saslMechanism = mechanism;
        sessionExpiryNanos = expiryNanos;
        saslComplete = true;
        saslSession = null;
    }

    /** The mechanism of the last successful exchange; null before. */
    String saslMechanism() {
        return saslMechanism;
    }

    SaslAuthenticator.Session saslSession() {
        return saslSession;
    }

    void saslSession(SaslAuthenticator.Session session) {
        this.saslSession = session;
    }
}
