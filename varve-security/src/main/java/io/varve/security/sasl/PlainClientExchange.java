package io.varve.security.sasl;

import java.nio.charset.StandardCharsets;

/**
 * PLAIN (RFC 4616) as a client: one message, {@code \0username\0password} (no authorization id, as Kafka's client
 * sends it); the server answers with an empty token on success, after which there is nothing to check.
 */
public final class PlainClientExchange implements SaslClientExchange {
    private final String username;
    private final String password;
    private boolean complete;

    public PlainClientExchange(String username, String password) {
        if (username.isEmpty() || username.indexOf('\0') >= 0 || password.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("a PLAIN username must be non-empty and neither it nor the password"
                    + " may contain a NUL character");
        }
        this.username = username;
        this.password = password;
    }

    @Override
    public String mechanism() {
        return PlainExchange.MECHANISM;
    }

    @Override
    public byte[] initialResponse() {
        return ("\0" + username + "\0" + password).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] evaluate(byte[] serverToken) throws SaslAuthenticationFailure {
        if (complete) {
            throw new SaslAuthenticationFailure("the PLAIN exchange is already over");
        }
        complete = true;
        return null;
    }

    @Override
    public boolean complete() {
        return complete;
    }
}
