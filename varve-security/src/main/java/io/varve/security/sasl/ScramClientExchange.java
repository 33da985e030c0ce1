package io.varve.security.sasl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;

/**
 * SCRAM-SHA-256 / SCRAM-SHA-512 (RFC 5802, RFC 7677) as a client, without channel binding ({@code n,,}), as Kafka's
 * client runs it: client-first, the server's salt, iterations and nonce, the client's proof, and the server's
 * signature, which the client checks so that a server that does not hold the credential cannot pass for one that
 * does. The server's nonce must extend the client's and its iteration count must be one Kafka accepts.
 *
 * <pre>
 * state          server token        client sends                next
 * (start)        -                   n,,n=user,r=cnonce          SERVER_FIRST
 * SERVER_FIRST   r=..,s=..,i=..      c=biws,r=..,p=proof         SERVER_FINAL
 * SERVER_FINAL   v=signature         nothing                     COMPLETE
 * any            e=error / invalid   nothing (failure)           FAILED
 * </pre>
 */
public final class ScramClientExchange implements SaslClientExchange {
    private enum State {
        SERVER_FIRST,
        SERVER_FINAL,
        COMPLETE,
        FAILED
    }

    private final ScramMechanism mechanism;
    private final String password;
    private final String clientNonce;
    private final String clientFirstBare;
    private State state = State.SERVER_FIRST;
    private byte[] expectedServerSignature;

    public ScramClientExchange(ScramMechanism mechanism, String username, String password, String clientNonce) {
        if (username.isEmpty() || clientNonce.isEmpty() || clientNonce.indexOf(',') >= 0) {
            throw new IllegalArgumentException("a SCRAM username and nonce must be non-empty, the nonce without ','");
        }
        this.mechanism = mechanism;
        this.password = password;
        this.clientNonce = clientNonce;
        this.clientFirstBare = "n=" + saslName(username) + ",r=" + clientNonce;
    }

    @Override
    public String mechanism() {
        return mechanism.mechanismName();
    }

    @Override
    public byte[] initialResponse() {
        return ("n,," + clientFirstBare).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public byte[] evaluate(byte[] serverToken) throws SaslAuthenticationFailure {
        State at = state;
        state = State.FAILED; // until this step succeeds
        String message = new String(serverToken, StandardCharsets.UTF_8);
        byte[] next =
                switch (at) {
                    case SERVER_FIRST -> serverFirst(message);
                    case SERVER_FINAL -> serverFinal(message);
                    case COMPLETE, FAILED ->
                        throw new SaslAuthenticationFailure("the " + mechanism() + " exchange is already over");
                };
        state = at == State.SERVER_FIRST ? State.SERVER_FINAL : State.COMPLETE;
        return next;
    }

    @Override
    public boolean complete() {
        return state == State.COMPLETE;
    }

    private byte[] serverFirst(String message) throws SaslAuthenticationFailure {
        serverError(message);
        String[] fields = message.split(",", -1);
        if (fields.length < 3
                || !fields[0].startsWith("r=")
                || !fields[1].startsWith("s=")
                || !fields[2].startsWith("i=")) {
            throw new SaslAuthenticationFailure("invalid " + mechanism() + " server first message");
        }
        String nonce = fields[0].substring(2);
        if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) {
            throw new SaslAuthenticationFailure(
                    "the " + mechanism() + " server nonce does not extend the client's (a replayed or forged answer)");
        }
        byte[] salt;
        int iterations;
        try {
            salt = Base64.getDecoder().decode(fields[1].substring(2));
            iterations = Integer.parseInt(fields[2].substring(2));
        } catch (IllegalArgumentException e) {
            throw new SaslAuthenticationFailure(
                    "invalid salt or iteration count in the " + mechanism() + " server first message");
        }
        if (iterations < ScramMechanism.MIN_ITERATIONS || iterations > ScramMechanism.MAX_ITERATIONS) {
            throw new SaslAuthenticationFailure("the server asks for " + iterations + " " + mechanism()
                    + " iterations, outside " + ScramMechanism.MIN_ITERATIONS + ".." + ScramMechanism.MAX_ITERATIONS);
        }
        String withoutProof = "c=biws,r=" + nonce;
        byte[] authMessage = (clientFirstBare + "," + message + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] salted = mechanism.saltedPassword(password, salt, iterations);
        byte[] clientKey = mechanism.hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
        byte[] clientSignature = mechanism.hmac(mechanism.hash(clientKey), authMessage);
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ clientSignature[i]);
        }
        byte[] serverKey = mechanism.hmac(salted, "Server Key".getBytes(StandardCharsets.US_ASCII));
        expectedServerSignature = mechanism.hmac(serverKey, authMessage);
        return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(StandardCharsets.UTF_8);
    }

    private byte[] serverFinal(String message) throws SaslAuthenticationFailure {
        serverError(message);
        if (!message.startsWith("v=")) {
            throw new SaslAuthenticationFailure("invalid " + mechanism() + " server final message");
        }
        byte[] signature;
        try {
            signature = Base64.getDecoder().decode(message.substring(2).split(",", 2)[0]);
        } catch (IllegalArgumentException e) {
            throw new SaslAuthenticationFailure("invalid base64 in the " + mechanism() + " server final message");
        }
        if (!MessageDigest.isEqual(signature, expectedServerSignature)) {
            throw new SaslAuthenticationFailure(
                    "the server's " + mechanism() + " signature is wrong: it does not hold this user's credential");
        }
        return null;
    }

    private void serverError(String message) throws SaslAuthenticationFailure {
        if (message.startsWith("e=")) {
            throw new SaslAuthenticationFailure(
                    "the server refused the " + mechanism() + " exchange: " + message.substring(2));
        }
    }

    /** RFC 5802's saslname: ',' and '=' travel as =2C and =3D. */
    private static String saslName(String username) {
        return username.replace("=", "=3D").replace(",", "=2C");
    }
}
