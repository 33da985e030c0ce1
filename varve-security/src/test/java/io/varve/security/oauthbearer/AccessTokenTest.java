package io.varve.security.oauthbearer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/** What the broker's login reads from a token endpoint's answer, and what it refuses (without echoing the token). */
class AccessTokenTest {
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    private static String jwt(String claims) {
        return URL.encodeToString("{\"alg\":\"RS256\"}".getBytes(UTF_8)) + "."
                + URL.encodeToString(claims.getBytes(UTF_8)) + ".c2lnbmF0dXJl";
    }

    @Test
    void theAccessTokenOfAnAnswerIsReadWithItsSubjectAndExpiry() {
        String jwt = jwt("{\"sub\":\"broker-1\",\"exp\":1800000060,\"iat\":1800000000}");
        AccessToken token = AccessToken.fromTokenResponse(
                "{\"access_token\":\"" + jwt + "\",\"token_type\":\"Bearer\",\"expires_in\":60}", "sub");
        assertThat(token.value()).isEqualTo(jwt);
        assertThat(token.principal()).isEqualTo("broker-1");
        assertThat(token.expiresAtMs()).isEqualTo(1_800_000_060_000L);
        assertThat(token.toString()).doesNotContain(jwt);
    }

    @Test
    void anotherPrincipalClaimIsReadWhenConfigured() {
        AccessToken token = AccessToken.parse(jwt("{\"client_id\":\"svc\",\"exp\":1800000060}"), "client_id");
        assertThat(token.principal()).isEqualTo("svc");
    }

    @Test
    void unusableAnswersAreRefusedWithASentenceThatDoesNotRepeatTheToken() {
        assertThatThrownBy(() -> AccessToken.fromTokenResponse("not json", "sub"))
                .hasMessageContaining("not JSON");
        assertThatThrownBy(() -> AccessToken.fromTokenResponse("{\"error\":\"invalid_client\"}", "sub"))
                .hasMessageContaining("no access_token");
        String noExp = jwt("{\"sub\":\"broker-1\"}");
        assertThatThrownBy(() -> AccessToken.fromTokenResponse("{\"access_token\":\"" + noExp + "\"}", "sub"))
                .hasMessageContaining("no exp claim")
                .hasMessageNotContaining(noExp);
        assertThatThrownBy(() -> AccessToken.parse(jwt("{\"exp\":1800000060}"), "sub"))
                .hasMessageContaining("no sub claim");
        assertThatThrownBy(() -> AccessToken.parse("opaque-token", "sub")).hasMessageContaining("not a JWT");
        assertThatThrownBy(() -> AccessToken.parse("a.%%%.c", "sub")).hasMessageContaining("not base64url");
    }
}
