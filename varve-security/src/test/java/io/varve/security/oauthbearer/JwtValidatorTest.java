package io.varve.security.oauthbearer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.Base64;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class JwtValidatorTest {
    private static final long NOW_MS = 1_800_000_000_000L;
    private static final long NOW_S = NOW_MS / 1000;
    private static KeyPair rsa;
    private static KeyPair ec;
    private static KeyPair stranger;
    private static JsonWebKeySet keys;

    @BeforeAll
    static void keys() throws Exception {
        rsa = TestTokens.rsa();
        ec = TestTokens.ec();
        stranger = TestTokens.rsa();
        keys = JsonWebKeySet.parse(TestTokens.jwks(TestTokens.jwk("r1", rsa), TestTokens.jwk("e1", ec)), "test JWKS");
    }

    private static JwtValidator validator(String issuer, Set<String> audiences, String subClaim) {
        return new JwtValidator(
                new JwtValidator.Settings(issuer, audiences, subClaim, "scope", 30), () -> keys, () -> NOW_MS);
    }

    private static JwtValidator validator() {
        return validator("https://issuer.test", Set.of("varve"), "sub");
    }

    private static String claims(long exp) {
        return "{\"iss\":\"https://issuer.test\",\"aud\":[\"other\",\"varve\"],\"sub\":\"alice\",\"iat\":"
                + (NOW_S - 10) + ",\"exp\":" + exp + ",\"scope\":\"read write\"}";
    }

    @Test
    void anRs256TokenSignedByAKeyOfTheSetNamesItsSubject() throws Exception {
        JwtValidator.ValidToken token = validator().validate(TestTokens.sign("RS256", "r1", rsa, claims(NOW_S + 600)));
        assertThat(token.principalName()).isEqualTo("alice");
        assertThat(token.expiresAtMs()).isEqualTo((NOW_S + 600) * 1000);
        assertThat(token.scopes()).containsExactly("read", "write");
    }

    @Test
    void anEs256TokenIsAcceptedAndAKidIsNotNeeded() throws Exception {
        assertThat(validator()
                        .validate(TestTokens.sign("ES256", null, ec, claims(NOW_S + 60)))
                        .principalName())
                .isEqualTo("alice");
    }

    @Test
    void anExpiredTokenIsRefusedBeyondTheClockSkewOnly() throws Exception {
        assertThat(validator()
                        .validate(TestTokens.sign("RS256", "r1", rsa, claims(NOW_S - 20)))
                        .principalName())
                .isEqualTo("alice");
        assertThatThrownBy(() -> validator().validate(TestTokens.sign("RS256", "r1", rsa, claims(NOW_S - 31))))
                .isInstanceOf(InvalidTokenException.class)
                .hasMessageStartingWith("expired at");
    }

    @Test
    void aTokenSignedByAnotherKeyIsRefused() throws Exception {
        assertThatThrownBy(() -> validator().validate(TestTokens.sign("RS256", "r1", stranger, claims(NOW_S + 60))))
                .hasMessage("the signature does not verify");
        assertThatThrownBy(() -> validator().validate(TestTokens.sign("RS256", "nope", rsa, claims(NOW_S + 60))))
                .hasMessage("no signing key with kid 'nope' for RS256 in the JWK set");
    }

    @Test
    void anUnknownKeyIdIsReportedSoTheSetCanBeReadAgain() throws Exception {
        java.util.List<String> reported = new java.util.ArrayList<>();
        JwtValidator validator = new JwtValidator(
                new JwtValidator.Settings(null, Set.of(), "sub", "scope", 30), () -> keys, () -> NOW_MS, reported::add);
        assertThatThrownBy(() -> validator.validate(TestTokens.sign("RS256", "rotated-2", rsa, claims(NOW_S + 60))))
                .isInstanceOf(InvalidTokenException.class);
        validator.validate(TestTokens.sign("RS256", "r1", rsa, claims(NOW_S + 60)));
        assertThat(reported).containsExactly("rotated-2");
    }

    @Test
    void aTamperedPayloadFailsTheSignature() throws Exception {
        String token = TestTokens.sign("RS256", "r1", rsa, claims(NOW_S + 60));
        String[] parts = token.split("\\.");
        String forged = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(claims(NOW_S + 600).replace("alice", "admin").getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> validator().validate(parts[0] + "." + forged + "." + parts[2]))
                .hasMessage("the signature does not verify");
    }

    @Test
    void unsignedAndSharedSecretTokensAreRefused() {
        String header = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"none\"}".getBytes());
        String payload = Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(claims(NOW_S + 60).getBytes());
        assertThatThrownBy(() -> validator().validate(header + "." + payload + "."))
                .hasMessageStartingWith("signature algorithm 'none' is not accepted");
        String hs = Base64.getUrlEncoder().withoutPadding().encodeToString("{\"alg\":\"HS256\"}".getBytes());
        assertThatThrownBy(() -> validator().validate(hs + "." + payload + ".c2ln"))
                .hasMessageStartingWith("signature algorithm 'HS256' is not accepted");
    }

    @Test
    void aWrongAudienceOrIssuerIsRefused() throws Exception {
        String token = TestTokens.sign("RS256", "r1", rsa, claims(NOW_S + 60));
        assertThatThrownBy(() -> validator("https://issuer.test", Set.of("billing"), "sub")
                        .validate(token))
                .hasMessageStartingWith("audience [other, varve], expected one of [billing]");
        assertThatThrownBy(() -> validator("https://elsewhere", Set.of(), "sub").validate(token))
                .hasMessageStartingWith("issuer 'https://issuer.test', expected 'https://elsewhere'");
        assertThat(validator(null, Set.of(), "sub").validate(token).principalName())
                .isEqualTo("alice");
    }

    @Test
    void thePrincipalComesFromTheConfiguredClaim() throws Exception {
        String token = TestTokens.sign(
                "RS256", "r1", rsa, "{\"exp\":" + (NOW_S + 60) + ",\"sub\":\"x\",\"client_id\":\"svc-orders\"}");
        assertThat(validator(null, Set.of(), "client_id").validate(token).principalName())
                .isEqualTo("svc-orders");
        assertThatThrownBy(() -> validator(null, Set.of(), "azp").validate(token))
                .hasMessage("no azp claim naming the principal");
    }

    @Test
    void aTokenWithoutExpiryOrNotYetValidIsRefused() throws Exception {
        assertThatThrownBy(() -> validator(null, Set.of(), "sub")
                        .validate(TestTokens.sign("RS256", "r1", rsa, "{\"sub\":\"alice\"}")))
                .hasMessage("no exp (expiration time) claim");
        assertThatThrownBy(() -> validator(null, Set.of(), "sub")
                        .validate(TestTokens.sign(
                                "RS256",
                                "r1",
                                rsa,
                                "{\"sub\":\"alice\",\"exp\":" + (NOW_S + 600) + ",\"nbf\":" + (NOW_S + 120) + "}")))
                .hasMessageStartingWith("not valid before");
    }

    @Test
    void garbageIsRefusedWithoutAnException() {
        for (String garbage : new String[] {"", "a.b", "a.b.c", "!!.??.**", "e30.e30.", "a.b.c.d.e"}) {
            assertThatThrownBy(() -> validator().validate(garbage)).isInstanceOf(InvalidTokenException.class);
        }
    }

    @Test
    void aKeySetSkipsEncryptionKeysAndRefusesAMalformedKey() throws Exception {
        String enc = "{\"kty\":\"RSA\",\"use\":\"enc\",\"n\":\"AQAB\",\"e\":\"AQAB\"}";
        assertThat(JsonWebKeySet.parse(TestTokens.jwks(enc, TestTokens.jwk("r1", rsa)), "jwks")
                        .keys())
                .extracting(JsonWebKeySet.Key::keyId)
                .containsExactly("r1");
        assertThatThrownBy(() -> JsonWebKeySet.parse("{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"k\"}]}", "jwks"))
                .hasMessageStartingWith("jwks has a malformed RSA key 'k'");
        assertThatThrownBy(() -> JsonWebKeySet.parse("{}", "jwks")).hasMessageContaining("no \"keys\" array");
    }
}
