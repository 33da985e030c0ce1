package io.varve.security.oauthbearer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.security.sasl.SaslAuthenticationFailure;
import java.security.KeyPair;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The broker's own OAUTHBEARER login against Varve's server exchange: accepted, refused (RFC 7628's error step). */
class OAuthBearerClientExchangeTest {
    private static final long NOW_MS = 1_800_000_000_000L;

    private static JwtValidator validator(KeyPair rsa) throws Exception {
        JsonWebKeySet keys = JsonWebKeySet.parse(TestTokens.jwks(TestTokens.jwk("k", rsa)), "jwks");
        return new JwtValidator(new JwtValidator.Settings(null, Set.of(), "sub", "scope", 0), () -> keys, () -> NOW_MS);
    }

    @Test
    void aGoodTokenCompletesAgainstTheServerWhichAuthenticatesItsSubject() throws Exception {
        KeyPair rsa = TestTokens.rsa();
        String jwt = TestTokens.sign("RS256", "k", rsa, "{\"sub\":\"broker\",\"exp\":" + (NOW_MS / 1000 + 60) + "}");
        OAuthBearerClientExchange client = new OAuthBearerClientExchange(jwt);
        OAuthBearerExchange server = new OAuthBearerExchange(validator(rsa));

        byte[] first = client.initialResponse();
        assertThat(ClientFirstMessage.parse(first).token()).isEqualTo(jwt);
        assertThat(client.evaluate(server.evaluate(first))).isNull();
        assertThat(client.complete()).isTrue();
        assertThat(server.complete()).isTrue();
        assertThat(server.authorizationId()).isEqualTo("broker");
        assertThatThrownBy(() -> client.evaluate(new byte[0])).isInstanceOf(SaslAuthenticationFailure.class);
    }

    @Test
    void aRefusedTokenAcknowledgesTheErrorJsonAndTheServerThenFails() throws Exception {
        KeyPair rsa = TestTokens.rsa();
        String expired =
                TestTokens.sign("RS256", "k", rsa, "{\"sub\":\"broker\",\"exp\":" + (NOW_MS / 1000 - 60) + "}");
        OAuthBearerClientExchange client = new OAuthBearerClientExchange(expired);
        OAuthBearerExchange server = new OAuthBearerExchange(validator(rsa));

        byte[] challenge = server.evaluate(client.initialResponse());
        assertThat(new String(challenge, UTF_8)).contains("invalid_token");
        byte[] acknowledgement = client.evaluate(challenge);
        assertThat(acknowledgement).containsExactly(0x01);
        assertThat(client.complete()).isFalse();
        assertThatThrownBy(() -> server.evaluate(acknowledgement)).isInstanceOf(SaslAuthenticationFailure.class);
    }

    @Test
    void aTokenThatCouldBreakTheMessageIsRefused() {
        assertThatThrownBy(() -> new OAuthBearerClientExchange("a b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OAuthBearerClientExchange("a\u0001b"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new OAuthBearerClientExchange("")).isInstanceOf(IllegalArgumentException.class);
    }
}
