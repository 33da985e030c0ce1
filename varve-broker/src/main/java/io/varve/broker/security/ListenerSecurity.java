package io.varve.broker.security;

import io.varve.security.ssl.PrincipalMappingRules;
import java.util.List;
import java.util.Map;

/**
 * What one listener needs to authenticate its connections: its protocol, and the TLS and SASL settings that protocol
 * uses (null when it uses none). Built by {@link SecurityConfig}, already validated.
 */
public record ListenerSecurity(String listenerName, SecurityProtocol protocol, Tls tls, Sasl sasl) {

    public static ListenerSecurity plaintext(String listenerName) {
        return new ListenerSecurity(listenerName, SecurityProtocol.PLAINTEXT, null, null);
    }

    /** {@code ssl.client.auth}. */
    public enum ClientAuth {
        NONE,
        REQUESTED,
        REQUIRED
    }

    /**
     * A keystore (or PEM key and chain), an optional truststore (or PEM certificates), client authentication and the
     * protocols and suites offered. Passwords are kept as given; they are never logged.
     */
    public record Tls(
            String keystoreType,
            String keystoreLocation,
            String keystorePassword,
            String keyPassword,
            String keystoreCertificateChain,
            String keystoreKey,
            String truststoreType,
            String truststoreLocation,
            String truststorePassword,
            String truststoreCertificates,
            ClientAuth clientAuth,
            List<String> enabledProtocols,
            List<String> cipherSuites,
            PrincipalMappingRules principalMappingRules,
            String keyManagerAlgorithm,
            String trustManagerAlgorithm) {
        @Override
        public String toString() {
            return "Tls(keystore " + keystoreType + ", client auth " + clientAuth + ")";
        }
    }

    /**
     * {@code sasl.enabled.mechanisms}, PLAIN's users (from the listener's JAAS text; empty when PLAIN is off) and
     * OAUTHBEARER's token validation (null when OAUTHBEARER is off), and per mechanism {@code
     * connections.max.reauth.ms} (KIP-368; 0: sessions do not expire unless their credential does).
     */
    public record Sasl(
            List<String> enabledMechanisms,
            Map<String, String> plainUsers,
            OAuthBearerSettings oauthBearer,
            Map<String, Long> maxReauthMsByMechanism) {
        /** {@code connections.max.reauth.ms} for a mechanism of this listener; 0 when not set. */
        public long maxReauthMs(String mechanism) {
            return maxReauthMsByMechanism.getOrDefault(mechanism, 0L);
        }

        @Override
        public String toString() {
            return "Sasl(" + enabledMechanisms + ", " + plainUsers.size() + " PLAIN users)";
        }
    }
}
