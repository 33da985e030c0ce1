/**
 * The server side of the SASL mechanisms a listener offers ({@code sasl.enabled.mechanisms}): PLAIN against the users
 * of the listener's JAAS text, SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802) against salted credentials, and the delay a
 * peer that keeps failing waits for its answer. Each {@link io.varve.security.sasl.SaslServerExchange} is one
 * connection's exchange: tokens in, tokens out, a principal at the end; it never sees a socket. The client side of
 * PLAIN and SCRAM ({@link io.varve.security.sasl.SaslClientExchange}) is what the broker's own connections to
 * another node's SASL listener speak.
 */
package io.varve.security.sasl;
