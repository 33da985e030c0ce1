/**
 * SASL/OAUTHBEARER's server side (RFC 7628, KIP-255, KIP-768): the client's first message, signed JWTs checked against
 * a JSON Web Key Set with issuer, audience, expiry and the principal claim. Pure: the key set's text and the clock
 * are handed in; fetching and refreshing the JWKS is the broker's job.
 */
package io.varve.security.oauthbearer;
