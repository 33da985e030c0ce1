package io.varve.broker.security;

import io.varve.security.Principal;

/**
 * Who a connection is, as far as it has proven: its listener's protocol and its principal, which TLS sets from the
 * client certificate once the handshake completes and SASL sets once the exchange succeeds. A SASL connection is
 * {@link #saslPending()} until then, and only the exchange's own requests are served to it. One per connection; its
 * requests are handled one at a time, so the fields change between requests only (volatile for the request threads
 * that read them in turn).
 */
public final class ConnectionAuthentication {
    private final SecurityProtocol protocol;
    private volatile Principal principal = Principal.ANONYMOUS;
    private volatile boolean saslComplete;
    /** The SASL exchange in progress, owned by {@link SaslAuthenticator}. */
    private volatile SaslAuthenticator.Session saslSession;

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

    /** The TLS handshake's principal; on SASL_SSL the SASL exchange names the principal instead. */
    public void tlsAuthenticated(Principal certificatePrincipal) {
        if (!protocol.sasl()) {
            principal = certificatePrincipal;
        }
    }

    void saslAuthenticated(Principal saslPrincipal) {
        principal = saslPrincipal;
        saslComplete = true;
        saslSession = null;
    }

    SaslAuthenticator.Session saslSession() {
        return saslSession;
    }

    void saslSession(SaslAuthenticator.Session session) {
        this.saslSession = session;
    }
}
