package io.varve.security.oauthbearer;

/** A bearer token that is not accepted, and why (for the broker's log: it never contains the token itself). */
public final class InvalidTokenException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidTokenException(String reason) {
        super(reason);
    }
}
