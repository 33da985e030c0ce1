package io.varve.security.sasl;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * One connection's SASL exchange on the client side (the broker's own connections to another node's SASL listener):
 * the first token, then the server's tokens in and the client's answers out until the client has also checked the
 * server (SCRAM's server signature). Not thread safe: one connection runs one exchange at a time. It never sees a
 * socket, and its errors never carry the password.
 */
public interface SaslClientExchange {

    /** The mechanism's name as the handshake asks for it, e.g. {@code SCRAM-SHA-512}. */
    String mechanism();

    /** The client's first token. */
    byte[] initialResponse();

    /**
     * Consumes the server's token and returns the client's next one, or null when the exchange is over on the
     * client's side (then {@link #complete()} is true).
     */
    byte[] evaluate(byte[] serverToken) throws SaslAuthenticationFailure;

    /** True once the client has nothing more to send and, where the mechanism can, has checked the server. */
    boolean complete();

    /**
     * A new exchange for {@code mechanism} as {@code username} with {@code password}; empty for a mechanism Varve
     * cannot speak as a client this way (OAUTHBEARER: {@code OAuthBearerClientExchange} with a token; GSSAPI).
     */
    static Optional<SaslClientExchange> of(
            String mechanism, String username, String password, Supplier<String> clientNonces) {
        if (mechanism.equals(PlainExchange.MECHANISM)) {
            return Optional.of(new PlainClientExchange(username, password));
        }
        return ScramMechanism.forName(mechanism)
                .map(m -> new ScramClientExchange(m, username, password, clientNonces.get()));
    }
}
