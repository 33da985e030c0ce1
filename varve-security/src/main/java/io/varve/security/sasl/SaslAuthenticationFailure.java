package io.varve.security.sasl;

/**
 * The peer did not prove who it is (wrong password, unknown user, a malformed or out-of-order token). The message
 * goes back to the client in SaslAuthenticate's error message, so it never contains a secret; the detail, when
 * there is one, says more for the broker's log only (OAUTHBEARER tells the client no more than {@code invalid_token}).
 */
public final class SaslAuthenticationFailure extends Exception {
    private static final long serialVersionUID = 1L;
    private final String detail;

    public SaslAuthenticationFailure(String message) {
        this(message, null);
    }

    public SaslAuthenticationFailure(String message, String detail) {
        super(message);
        this.detail = detail;
    }

    /** What the log says: the detail when there is one, else the message. */
    public String logMessage() {
        return detail != null ? getMessage() + ": " + detail : getMessage();
    }
}
