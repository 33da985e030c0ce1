package io.varve.http;

import io.netty.handler.ssl.SslContext;
import java.security.cert.X509Certificate;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * How the HTTP listener secures itself: the TLS context of its {@code https://} endpoints, and which authentication
 * every request but the health probes must pass. Built by the broker from {@code varve.http.*} (varve-http/README.md);
 * the listener knows nothing of where credentials live.
 *
 * @param sslContext the server context for {@code https://} endpoints; null when none is configured
 * @param methods the accepted ways to authenticate; empty lets every request in as anonymous
 * @param basic checks HTTP Basic credentials (the broker's SCRAM credentials or PLAIN users), returning the principal
 * @param certificatePrincipal the principal of a verified client certificate (the broker's principal mapping rules)
 */
public record HttpSecurity(
        SslContext sslContext,
        Set<Method> methods,
        BasicVerifier basic,
        Function<X509Certificate, String> certificatePrincipal) {

    /** A way to authenticate an HTTP request. */
    public enum Method {
        /** {@code Authorization: Basic}: a user and password checked against the broker's SASL credentials. */
        BASIC,
        /** The client certificate of an {@code https://} connection whose TLS asked for one. */
        MTLS
    }

    /** Checks one user's password; the principal (for example {@code User:alice}) when it verifies. */
    @FunctionalInterface
    public interface BasicVerifier {
        Optional<String> verify(String user, String password);
    }

    /** Plain HTTP, no authentication: the default. */
    public static final HttpSecurity NONE = new HttpSecurity(null, Set.of(), null, null);

    public HttpSecurity {
        methods = Set.copyOf(methods);
        if (methods.contains(Method.BASIC) && basic == null) {
            throw new IllegalArgumentException("Basic authentication needs a verifier");
        }
        if (methods.contains(Method.MTLS) && (sslContext == null || certificatePrincipal == null)) {
            throw new IllegalArgumentException("certificate authentication needs TLS and a principal mapping");
        }
    }

    /** Whether requests must authenticate. */
    public boolean authenticates() {
        return !methods.isEmpty();
    }
}
