/**
 * Listener security on the broker: which security protocol each listener speaks and with what ({@link
 * io.varve.broker.security.SecurityConfig} reads Kafka's {@code ssl.*}, {@code sasl.*} and {@code listener.name.*}
 * keys and refuses, with one sentence naming the key, anything it cannot honour), the TLS contexts built from
 * keystores ({@link io.varve.broker.security.TlsContexts}), and the per-connection SASL exchange behind SaslHandshake
 * and SaslAuthenticate ({@link io.varve.broker.security.SaslAuthenticator}). The mechanisms themselves are pure logic
 * in varve-security; this package only connects them to config, Netty and the wire.
 */
package io.varve.broker.security;
