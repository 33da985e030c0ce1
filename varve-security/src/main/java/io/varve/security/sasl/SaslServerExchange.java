package io.varve.security.sasl;

import io.varve.security.Principal;
import java.util.OptionalLong;

/**
 * One connection's SASL exchange on the server. Not thread safe: a connection's requests are handled one at a time.
 */
public interface SaslServerExchange {

    /** The mechanism's name as clients ask for it, e.g. {@code SCRAM-SHA-512}. */
    String mechanism();

    /** Consumes the client's next token and returns the server's answer (empty when it has nothing to say). */
    byte[] evaluate(byte[] clientToken) throws SaslAuthenticationFailure;

    /** True once the client has proven its identity. */
    boolean complete();

    /** The authenticated user name; only once {@link #complete()}. */
    String authorizationId();

    /**
     * The connection's principal once {@link #complete()}: {@code User:<authorization id>}, or a delegation token's
     * owner marked token-authenticated.
     */
    default Principal principal() {
        return Principal.user(authorizationId());
    }

    /**
     * When the proven credential stops being valid (a token's expiry, epoch milliseconds), which bounds the session
     * (KIP-368); empty for credentials that do not expire. Only once {@link #complete()}.
     */
    default OptionalLong credentialExpiryMs() {
        return OptionalLong.empty();
    }
}
