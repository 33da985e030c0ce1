package io.varve.security.oauthbearer;

import io.varve.security.sasl.SaslAuthenticationFailure;
import io.varve.security.sasl.SaslServerExchange;
import java.nio.charset.StandardCharsets;
import java.util.OptionalLong;

/**
 * The server side of one OAUTHBEARER exchange (RFC 7628), as Kafka runs it:
 *
 * <pre>
 * state        client sends                       server                                   next
 * FIRST        first message, token accepted      empty answer                             DONE (authenticated)
 * FIRST        first message, token refused       {"status":"invalid_token"}               ERROR_SENT
 * FIRST        malformed message                  SASL_AUTHENTICATION_FAILED               (closed)
 * ERROR_SENT   %x01 (the client's acknowledgement) SASL_AUTHENTICATION_FAILED, that JSON   (closed)
 * ERROR_SENT   anything else                      SASL_AUTHENTICATION_FAILED               (closed)
 * </pre>
 *
 * Why a token was refused goes to the broker's log only (the failure's detail); the client learns {@code
 * invalid_token}, as RFC 6750 and Kafka answer.
 */
public final class OAuthBearerExchange implements SaslServerExchange {
    public static final String MECHANISM = "OAUTHBEARER";
    static final String INVALID_TOKEN_JSON = "{\"status\":\"invalid_token\"}";

    private enum State {
        FIRST,
        ERROR_SENT,
        DONE,
        FAILED
    }

    private final JwtValidator validator;
    private State state = State.FIRST;
    private String refusal;
    private JwtValidator.ValidToken token;

    public OAuthBearerExchange(JwtValidator validator) {
        this.validator = validator;
    }

    @Override
    public String mechanism() {
        return MECHANISM;
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws SaslAuthenticationFailure {
        switch (state) {
            case FIRST -> {
                state = State.FAILED;
                ClientFirstMessage message = ClientFirstMessage.parse(clientToken);
                JwtValidator.ValidToken valid;
                try {
                    valid = validator.validate(message.token());
                } catch (InvalidTokenException e) {
                    refusal = e.getMessage();
                    state = State.ERROR_SENT;
                    return INVALID_TOKEN_JSON.getBytes(StandardCharsets.UTF_8);
                }
                if (message.authorizationId() != null
                        && !message.authorizationId().equals(valid.principalName())) {
                    throw new SaslAuthenticationFailure("Authentication failed: the client requested an"
                            + " authorization id that is different from the token's principal name");
                }
                token = valid;
                state = State.DONE;
                return new byte[0];
            }
            case ERROR_SENT -> {
                state = State.FAILED;
                if (clientToken.length == 1 && clientToken[0] == 0x01) {
                    throw new SaslAuthenticationFailure(INVALID_TOKEN_JSON, refusal);
                }
                throw new SaslAuthenticationFailure(
                        "Authentication failed: expected %x01 after the error answer", refusal);
            }
            default -> throw new SaslAuthenticationFailure("Authentication failed: OAUTHBEARER exchange is over");
        }
    }

    @Override
    public boolean complete() {
        return state == State.DONE;
    }

    @Override
    public String authorizationId() {
        if (token == null) {
            throw new IllegalStateException("OAUTHBEARER exchange not complete");
        }
        return token.principalName();
    }

    @Override
    public OptionalLong credentialExpiryMs() {
        if (token == null) {
            throw new IllegalStateException("OAUTHBEARER exchange not complete");
        }
        return OptionalLong.of(token.expiresAtMs());
    }
}
