package io.varve.security.sasl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;

/**
 * SASL PLAIN (RFC 4616): one token {@code [authzid] NUL authcid NUL password}, checked against the listener's users
 * ({@code user_<name>="<password>"} in its JAAS text). The authorization id may only repeat the user name, as in Kafka.
 * Passwords are compared in constant time. A failed exchange stays failed: a second token is refused whatever it holds,
 * so one connection cannot try password after password (the fuzzer found the exchange accepting one after a wrong one).
 */
public final class PlainExchange implements SaslServerExchange {
    public static final String MECHANISM = "PLAIN";

    private final Map<String, String> passwordsByUser;
    private String user;
    private boolean failed;

    public PlainExchange(Map<String, String> passwordsByUser) {
        this.passwordsByUser = passwordsByUser;
    }

    @Override
    public String mechanism() {
        return MECHANISM;
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws SaslAuthenticationFailure {
        if (user != null || failed) {
            throw new SaslAuthenticationFailure("Authentication failed: PLAIN takes one token and it was already sent");
        }
        failed = true; // until the token proves the user
        String token = new String(clientToken, StandardCharsets.UTF_8);
        int first = token.indexOf('\0');
        int second = first < 0 ? -1 : token.indexOf('\0', first + 1);
        if (first < 0 || second < 0 || token.indexOf('\0', second + 1) >= 0) {
            throw new SaslAuthenticationFailure(
                    "Authentication failed: invalid SASL/PLAIN response: expected 3 tokens");
        }
        String authorizationId = token.substring(0, first);
        String username = token.substring(first + 1, second);
        String password = token.substring(second + 1);
        if (username.isEmpty()) {
            throw new SaslAuthenticationFailure("Authentication failed: username not specified");
        }
        if (password.isEmpty()) {
            throw new SaslAuthenticationFailure("Authentication failed: password not specified");
        }
        if (!authorizationId.isEmpty() && !authorizationId.equals(username)) {
            throw new SaslAuthenticationFailure(
                    "Authentication failed: Client requested an authorization id that is different from username");
        }
        String expected = passwordsByUser.get(username);
        // an unknown user costs the same comparison as a wrong password
        byte[] expectedBytes = (expected == null ? "" : expected).getBytes(StandardCharsets.UTF_8);
        boolean matches = MessageDigest.isEqual(expectedBytes, password.getBytes(StandardCharsets.UTF_8));
        if (expected == null || !matches) {
            throw new SaslAuthenticationFailure("Authentication failed: Invalid username or password");
        }
        user = username;
        failed = false;
        return new byte[0];
    }

    @Override
    public boolean complete() {
        return user != null;
    }

    @Override
    public String authorizationId() {
        if (user == null) {
            throw new IllegalStateException("PLAIN exchange not complete");
        }
        return user;
    }
}
