package io.varve.security.oauthbearer;

import io.varve.security.sasl.SaslAuthenticationFailure;
import io.varve.security.sasl.SaslClientExchange;
import java.nio.charset.StandardCharsets;

/**
 * OAUTHBEARER (RFC 7628, KIP-255) as a client, for the broker's own connections: one message, {@code
 * n,,\x01auth=Bearer <token>\x01\x01} (no authorization id, no extensions). The server answers an empty token when it
 * accepts it; when it refuses it, it sends an error JSON ({@code {"status":"invalid_token"}}) to which the client
 * answers {@code \x01}, and only then the failure (SASL_AUTHENTICATION_FAILED), as RFC 7628 section 3.2.3 runs it.
 */
public final class OAuthBearerClientExchange implements SaslClientExchange {
    private static final byte[] ACKNOWLEDGE_ERROR = {0x01};

    private final String token;
    private boolean complete;

    /** {@code token}: a compact JWS, as the token endpoint issued it. */
    public OAuthBearerClientExchange(String token) {
        if (token.isEmpty() || !token.chars().allMatch(c -> c > 0x20 && c < 0x7F)) {
            throw new IllegalArgumentException("a bearer token is printable ASCII without spaces");
        }
        this.token = token;
    }

    @Override
    public String mechanism() {
        return OAuthBearerExchange.MECHANISM;
    }

    @Override
    public byte[] initialResponse() {
        return ("n,,\u0001auth=Bearer " + token + "\u0001\u0001").getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public byte[] evaluate(byte[] serverToken) throws SaslAuthenticationFailure {
        if (complete) {
            throw new SaslAuthenticationFailure("the OAUTHBEARER exchange is already over");
        }
        if (serverToken == null || serverToken.length == 0) {
            complete = true;
            return null;
        }
        // the server's error JSON: acknowledge it, the failure follows in the next answer
        return ACKNOWLEDGE_ERROR;
    }

    @Override
    public boolean complete() {
        return complete;
    }
}
