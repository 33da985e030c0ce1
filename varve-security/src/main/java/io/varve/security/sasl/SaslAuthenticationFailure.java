package io.varve.security.sasl;

/**
 * The peer did not prove who it is (wrong password, unknown user, a malformed or out-of-order token). The message
 * goes back to the client in SaslAuthenticate's error message, so it never contains a secret.
 */
public final class SaslAuthenticationFailure extends Exception {
    private static final long serialVersionUID = 1L;

    public SaslAuthenticationFailure(String message) {
        super(message);
    }
}
