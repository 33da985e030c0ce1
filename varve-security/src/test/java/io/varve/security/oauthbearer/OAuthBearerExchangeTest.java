package io.varve.security.oauthbearer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.security.sasl.SaslAuthenticationFailure;
import java.security.KeyPair;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OAuthBearerExchangeTest {
    private static final long NOW_MS = 1_800_000_000_000L;
    private static KeyPair rsa;
    private static JwtValidator validator;

    @BeforeAll
    static void keys() throws Exception {
        rsa = TestTokens.rsa();
        JsonWebKeySet keys = JsonWebKeySet.parse(TestTokens.jwks(TestTokens.jwk("k", rsa)), "jwks");
        validator = new JwtValidator(
                new JwtValidator.Settings(null, Set.of(), "sub", "scope", 0), () -> keys, () -> NOW_MS);
    }

    private static byte[] first(String gs2, String token, String extensions) {
        return (gs2 + "\u0001auth=Bearer " + token + "\u0001" + extensions + "\u0001").getBytes(UTF_8);
    }

    private static String token(long expS) throws Exception {
        return TestTokens.sign("RS256", "k", rsa, "{\"sub\":\"alice\",\"exp\":" + expS + "}");
    }

    @Test
    void aValidTokenAuthenticatesItsSubjectUntilItExpires() throws Exception {
        OAuthBearerExchange exchange = new OAuthBearerExchange(validator);
        assertThat(exchange.evaluate(first("n,,", token(NOW_MS / 1000 + 60), "traceId=abc\u0001")))
                .isEmpty();
        assertThat(exchange.complete()).isTrue();
        assertThat(exchange.authorizationId()).isEqualTo("alice");
        assertThat(exchange.credentialExpiryMs()).hasValue(NOW_MS + 60_000);
    }

    @Test
    void aRefusedTokenGetsTheErrorJsonThenFailsOnTheAcknowledgement() throws Exception {
        OAuthBearerExchange exchange = new OAuthBearerExchange(validator);
        byte[] answer = exchange.evaluate(first("n,,", token(NOW_MS / 1000 - 1), ""));
        assertThat(new String(answer, UTF_8)).isEqualTo("{\"status\":\"invalid_token\"}");
        assertThat(exchange.complete()).isFalse();
        assertThatThrownBy(() -> exchange.evaluate(new byte[] {1}))
                .isInstanceOf(SaslAuthenticationFailure.class)
                .hasMessage("{\"status\":\"invalid_token\"}")
                .satisfies(e ->
                        assertThat(((SaslAuthenticationFailure) e).logMessage()).contains("expired at"));
    }

    @Test
    void anAuthorizationIdOtherThanTheTokensSubjectIsRefused() throws Exception {
        assertThat(new OAuthBearerExchange(validator).evaluate(first("n,a=alice,", token(NOW_MS / 1000 + 60), "")))
                .isEmpty();
        assertThatThrownBy(() ->
                        new OAuthBearerExchange(validator).evaluate(first("n,a=admin,", token(NOW_MS / 1000 + 60), "")))
                .hasMessageContaining("different from the token's principal name");
    }

    @Test
    void theClientFirstMessageIsParsedStrictly() throws Exception {
        ClientFirstMessage message = ClientFirstMessage.parse(first("n,a=bob,", "abc.def.ghi", "k=v\u0001"));
        assertThat(message.authorizationId()).isEqualTo("bob");
        assertThat(message.token()).isEqualTo("abc.def.ghi");
        assertThat(message.extensions()).isEqualTo(Map.of("k", "v"));
        for (String bad : new String[] {
            "",
            "n,,",
            "p=tls-unique,,\u0001auth=Bearer x\u0001\u0001",
            "n,,\u0001auth=Bearer x\u0001",
            "n,,\u0001\u0001",
            "n,,\u0001auth=Basic x\u0001\u0001",
            "n,,\u0001auth=Bearer x\u0001\u0001junk",
            "n,,\u0001auth=Bearer x\u0001auth=Bearer y\u0001\u0001",
            "n,,\u0001=v\u0001auth=Bearer x\u0001\u0001"
        }) {
            assertThatThrownBy(() -> ClientFirstMessage.parse(bad.getBytes(UTF_8)))
                    .as(bad)
                    .isInstanceOf(SaslAuthenticationFailure.class);
        }
    }
}
