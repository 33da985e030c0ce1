package io.varve.security.sasl;

import io.varve.security.Principal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The server side of one SCRAM exchange (RFC 5802), as strict as Kafka's: no channel binding ({@code n} only), an
 * authorization id only if it repeats the user name, printable nonces without commas, the combined nonce echoed (ending the
 * final message's nonce, as Kafka accepts it), the GS2 header echoed exactly in the final message, and a proof that matches the stored key.
 *
 * <p>Delegation tokens: with the {@code tokenauth=true} extension the user name is a token id and the password the
 * token's HMAC; the credential comes from {@link DelegationTokenCredentials}, the authenticated principal is the
 * token's owner (marked token-authenticated) and the token's expiry bounds the session. Without a token lookup (no
 * {@code delegation.token.secret.key}) such an exchange fails.
 *
 * <pre>
 * state            token in                      token out              next
 * CLIENT_FIRST     n,[a=user],n=user,r=cnonce    r=cnonce+snonce,s=,i=  CLIENT_FINAL
 * CLIENT_FINAL     c=biws,r=nonce,p=proof        v=server signature     COMPLETE
 * any failure                                    SaslAuthenticationFailure  FAILED (terminal)
 * </pre>
 */
public final class ScramExchange implements SaslServerExchange {
    private enum State {
        CLIENT_FIRST,
        CLIENT_FINAL,
        COMPLETE,
        FAILED
    }

    private final ScramMechanism mechanism;
    private final ScramCredentials credentials;
    private final Supplier<String> serverNonces;
    /** Null when delegation tokens are not enabled. */
    private final DelegationTokenCredentials tokens;

    private State state = State.CLIENT_FIRST;
    /** Set when the client authenticates with a delegation token. */
    private DelegationTokenCredential token;

    private String user;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private ScramCredential credential;

    /** {@code serverNonces} gives the server's part of each nonce: printable, no commas, unguessable. */
    public ScramExchange(ScramMechanism mechanism, ScramCredentials credentials, Supplier<String> serverNonces) {
        this(mechanism, credentials, serverNonces, null);
    }

    /** @param tokens where {@code tokenauth=true} clients' tokens are found; null: delegation tokens are refused */
    public ScramExchange(
            ScramMechanism mechanism,
            ScramCredentials credentials,
            Supplier<String> serverNonces,
            DelegationTokenCredentials tokens) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.serverNonces = serverNonces;
        this.tokens = tokens;
    }

    @Override
    public String mechanism() {
        return mechanism.mechanismName();
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws SaslAuthenticationFailure {
        State at = state;
        state = State.FAILED; // until this step succeeds
        String message = new String(clientToken, StandardCharsets.UTF_8);
        byte[] answer =
                switch (at) {
                    case CLIENT_FIRST -> clientFirst(message);
                    case CLIENT_FINAL -> clientFinal(message);
                    case COMPLETE, FAILED ->
                        throw new SaslAuthenticationFailure(
                                "Authentication failed: the " + mechanism() + " exchange is already over");
                };
        state = at == State.CLIENT_FIRST ? State.CLIENT_FINAL : State.COMPLETE;
        return answer;
    }

    private byte[] clientFirst(String message) throws SaslAuthenticationFailure {
        if (!message.startsWith("n,")) {
            throw fail("Authentication failed: invalid SCRAM client first message (channel binding is not supported)");
        }
        int headerEnd = message.indexOf(',', 2);
        if (headerEnd < 0) {
            throw fail("Authentication failed: invalid SCRAM client first message");
        }
        String authzid = message.substring(2, headerEnd);
        if (!authzid.isEmpty() && !authzid.startsWith("a=")) {
            throw fail("Authentication failed: invalid SCRAM client first message");
        }
        gs2Header = message.substring(0, headerEnd + 1);
        clientFirstBare = message.substring(headerEnd + 1);
        String[] fields = clientFirstBare.split(",", -1);
        if (fields.length < 2 || !fields[0].startsWith("n=") || !fields[1].startsWith("r=")) {
            throw fail("Authentication failed: invalid SCRAM client first message");
        }
        boolean tokenAuth = false;
        for (int i = 2; i < fields.length; i++) {
            int eq = fields[i].indexOf('=');
            if (eq <= 0) {
                throw fail("Authentication failed: invalid SCRAM extension");
            }
            if (fields[i].substring(0, eq).equals("tokenauth")
                    && fields[i].substring(eq + 1).equalsIgnoreCase("true")) {
                tokenAuth = true;
            }
        }
        if (tokenAuth && tokens == null) {
            throw fail("Authentication failed: delegation tokens are not enabled");
        }
        user = saslName(fields[0].substring(2));
        if (user.isEmpty()) {
            throw fail("Authentication failed: username not specified");
        }
        if (!authzid.isEmpty() && !saslName(authzid.substring(2)).equals(user)) {
            throw fail("Authentication failed: Client requested an authorization id that is different from username");
        }
        String clientNonce = fields[1].substring(2);
        if (!printableNonce(clientNonce)) {
            throw fail("Authentication failed: invalid client nonce");
        }
        if (tokenAuth) {
            token = tokens.find(user, mechanism)
                    .orElseThrow(() -> fail("Authentication failed: Invalid user credentials"));
            credential = token.credential();
        } else {
            credential = credentials
                    .find(user, mechanism)
                    .orElseThrow(() -> fail("Authentication failed: Invalid user credentials"));
        }
        String serverNonce = serverNonces.get();
        if (!printableNonce(serverNonce)) {
            throw new IllegalStateException("server nonce must be printable and without commas");
        }
        nonce = clientNonce + serverNonce;
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(credential.salt()) + ",i="
                + credential.iterations();
        return serverFirst.getBytes(StandardCharsets.UTF_8);
    }

    private byte[] clientFinal(String message) throws SaslAuthenticationFailure {
        int proofAt = message.lastIndexOf(",p=");
        if (!message.startsWith("c=") || proofAt < 0) {
            throw fail("Authentication failed: invalid SCRAM client final message");
        }
        String withoutProof = message.substring(0, proofAt);
        String[] fields = withoutProof.split(",", -1);
        if (fields.length < 2 || !fields[1].startsWith("r=")) {
            throw fail("Authentication failed: invalid SCRAM client final message");
        }
        byte[] channel = decode(fields[0].substring(2));
        if (!MessageDigest.isEqual(channel, gs2Header.getBytes(StandardCharsets.UTF_8))) {
            throw fail("Authentication failed: invalid channel binding");
        }
        // Kafka accepts a final nonce that ends with the combined one: librdkafka (2.0) sends its own nonce again in
        // front. The proof covers the message as sent, so nothing is weaker for it.
        if (!fields[1].substring(2).endsWith(nonce)) {
            throw fail("Authentication failed: Invalid client nonce in the final client message");
        }
        byte[] proof = decode(message.substring(proofAt + 3));
        byte[] authMessage =
                (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] storedKey = credential.storedKey();
        byte[] clientSignature = mechanism.hmac(storedKey, authMessage);
        if (proof.length != clientSignature.length) {
            throw invalidCredentials();
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        if (!MessageDigest.isEqual(mechanism.hash(clientKey), storedKey)) {
            throw invalidCredentials();
        }
        byte[] serverSignature = mechanism.hmac(credential.serverKey(), authMessage);
        return ("v=" + Base64.getEncoder().encodeToString(serverSignature)).getBytes(StandardCharsets.UTF_8);
    }

    private SaslAuthenticationFailure invalidCredentials() {
        return fail("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                + mechanism());
    }

    private SaslAuthenticationFailure fail(String message) {
        state = State.FAILED;
        return new SaslAuthenticationFailure(message);
    }

    private byte[] decode(String base64) throws SaslAuthenticationFailure {
        try {
            return Base64.getDecoder().decode(base64);
        } catch (IllegalArgumentException e) {
            throw fail("Authentication failed: invalid base64 in the SCRAM client final message");
        }
    }

    /** RFC 5802's saslname: ',' and '=' travel as =2C and =3D; any other '=' is malformed. */
    private String saslName(String encoded) throws SaslAuthenticationFailure {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '=') {
                if (encoded.startsWith("=2C", i)) {
                    out.append(',');
                } else if (encoded.startsWith("=3D", i)) {
                    out.append('=');
                } else {
                    throw fail("Authentication failed: invalid username encoding");
                }
                i += 2;
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    private static boolean printableNonce(String nonce) {
        if (nonce.isEmpty()) {
            return false;
        }
        for (int i = 0; i < nonce.length(); i++) {
            char c = nonce.charAt(i);
            if (c < 0x21 || c > 0x7e || c == ',') {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean complete() {
        return state == State.COMPLETE;
    }

    @Override
    public String authorizationId() {
        if (state != State.COMPLETE) {
            throw new IllegalStateException("SCRAM exchange not complete");
        }
        return token != null ? token.owner().name() : user;
    }

    @Override
    public Principal principal() {
        if (state != State.COMPLETE) {
            throw new IllegalStateException("SCRAM exchange not complete");
        }
        return token != null ? Principal.tokenOwner(token.owner()) : Principal.user(user);
    }

    @Override
    public OptionalLong credentialExpiryMs() {
        return token != null ? OptionalLong.of(token.expiryTimestampMs()) : OptionalLong.empty();
    }
}
