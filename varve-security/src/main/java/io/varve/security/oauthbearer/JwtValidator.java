package io.varve.security.oauthbearer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Checks a signed JWT (RFC 7519, compact JWS) as Kafka's {@code OAuthBearerValidatorCallbackHandler} does with its
 * {@code sasl.oauthbearer.*} settings: an asymmetric signature (RS, PS or ES with SHA-256/384/512; never {@code none}
 * nor a shared-secret HS) by a key of the current JWK set, chosen by {@code kid}; {@code exp} required and not passed,
 * {@code nbf} and {@code iat} not in the future, each within the clock skew; the issuer and one of the audiences when
 * they are expected; the principal from the configured subject claim. Pure: keys and clock are injected.
 */
public final class JwtValidator {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Base64.Decoder BASE64URL = Base64.getUrlDecoder();

    /** {@code sasl.oauthbearer.expected.issuer} (null: any), {@code .expected.audience} (empty: any), the claims. */
    public record Settings(
            String expectedIssuer,
            Set<String> expectedAudiences,
            String subClaimName,
            String scopeClaimName,
            long clockSkewSeconds) {
        public Settings {
            expectedAudiences = Set.copyOf(expectedAudiences);
            if (clockSkewSeconds < 0) {
                throw new IllegalArgumentException("clock skew must be at least 0 s");
            }
        }
    }

    /** An accepted token: who it names, until when, with which scopes. */
    public record ValidToken(String principalName, long expiresAtMs, Set<String> scopes) {}

    private record Algorithm(String jca, boolean rsa, String curve, PSSParameterSpec pss) {}

    private static final Map<String, Algorithm> ALGORITHMS = Map.of(
            "RS256", new Algorithm("SHA256withRSA", true, null, null),
            "RS384", new Algorithm("SHA384withRSA", true, null, null),
            "RS512", new Algorithm("SHA512withRSA", true, null, null),
            "PS256", new Algorithm("RSASSA-PSS", true, null, pss("SHA-256", MGF1ParameterSpec.SHA256, 32)),
            "PS384", new Algorithm("RSASSA-PSS", true, null, pss("SHA-384", MGF1ParameterSpec.SHA384, 48)),
            "PS512", new Algorithm("RSASSA-PSS", true, null, pss("SHA-512", MGF1ParameterSpec.SHA512, 64)),
            "ES256", new Algorithm("SHA256withECDSAinP1363Format", false, "P-256", null),
            "ES384", new Algorithm("SHA384withECDSAinP1363Format", false, "P-384", null),
            "ES512", new Algorithm("SHA512withECDSAinP1363Format", false, "P-521", null));

    private static PSSParameterSpec pss(String digest, MGF1ParameterSpec mgf, int saltBytes) {
        return new PSSParameterSpec(digest, "MGF1", mgf, saltBytes, 1);
    }

    private final Settings settings;
    private final Supplier<JsonWebKeySet> keys;
    private final LongSupplier clockMs;
    private final Consumer<String> unknownKeyId;

    public JwtValidator(Settings settings, Supplier<JsonWebKeySet> keys, LongSupplier clockMs) {
        this(settings, keys, clockMs, kid -> {});
    }

    /**
     * @param unknownKeyId told the {@code kid} of a token no key of the set has: the identity provider may have rotated
     *     its keys, so the set's owner reads it again early (the token itself is still refused)
     */
    public JwtValidator(
            Settings settings, Supplier<JsonWebKeySet> keys, LongSupplier clockMs, Consumer<String> unknownKeyId) {
        this.settings = settings;
        this.keys = keys;
        this.clockMs = clockMs;
        this.unknownKeyId = unknownKeyId;
    }

    public ValidToken validate(String jwt) throws InvalidTokenException {
        String[] parts = jwt.split("\\.", -1);
        if (parts.length != 3) {
            throw new InvalidTokenException("not a signed JWT: expected three dot-separated parts, found "
                    + parts.length + (parts.length == 5 ? " (an encrypted JWE is not accepted)" : ""));
        }
        JsonNode header = json(parts[0], "header");
        String alg = header.path("alg").asText("");
        Algorithm algorithm = ALGORITHMS.get(alg);
        if (algorithm == null) {
            throw new InvalidTokenException("signature algorithm '" + alg + "' is not accepted: use RS, PS or ES"
                    + " with SHA-256, SHA-384 or SHA-512");
        }
        if (header.has("crit")) {
            throw new InvalidTokenException("the header marks extensions critical (crit), which are not understood");
        }
        String kid = header.path("kid").isTextual() ? header.get("kid").asText() : null;
        byte[] signed = (parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII);
        byte[] signature = decode(parts[2], "signature");
        List<JsonWebKeySet.Key> candidates = candidates(kid, alg, algorithm);
        if (candidates.isEmpty()) {
            if (kid != null) {
                unknownKeyId.accept(kid);
            }
            throw new InvalidTokenException(
                    kid != null
                            ? "no signing key with kid '" + kid + "' for " + alg + " in the JWK set"
                            : "no signing key for " + alg + " in the JWK set");
        }
        boolean verified = false;
        for (JsonWebKeySet.Key key : candidates) {
            if (verifies(algorithm, key, signed, signature)) {
                verified = true;
                break;
            }
        }
        if (!verified) {
            throw new InvalidTokenException("the signature does not verify");
        }
        return checkClaims(json(parts[1], "payload"));
    }

    private List<JsonWebKeySet.Key> candidates(String kid, String alg, Algorithm algorithm) {
        List<JsonWebKeySet.Key> candidates = new ArrayList<>();
        for (JsonWebKeySet.Key key : keys.get().keys()) {
            if (kid != null && !kid.equals(key.keyId())) {
                continue;
            }
            if (key.algorithm() != null && !key.algorithm().equals(alg)) {
                continue;
            }
            if (key.isRsa() != algorithm.rsa()
                    || (!algorithm.rsa() && !algorithm.curve().equals(key.curve()))) {
                continue;
            }
            candidates.add(key);
        }
        return candidates;
    }

    private static boolean verifies(Algorithm algorithm, JsonWebKeySet.Key key, byte[] signed, byte[] signature) {
        try {
            Signature verifier = Signature.getInstance(algorithm.jca());
            if (algorithm.pss() != null) {
                verifier.setParameter(algorithm.pss());
            }
            verifier.initVerify(key.publicKey());
            verifier.update(signed);
            return verifier.verify(signature);
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            return false;
        }
    }

    private ValidToken checkClaims(JsonNode claims) throws InvalidTokenException {
        long nowMs = clockMs.getAsLong();
        long skewMs = settings.clockSkewSeconds() * 1000;
        Long expMs = numericDateMs(claims, "exp");
        if (expMs == null) {
            throw new InvalidTokenException("no exp (expiration time) claim");
        }
        if (nowMs >= expMs + skewMs) {
            throw new InvalidTokenException("expired at " + expMs / 1000 + " (now " + nowMs / 1000 + ", clock skew "
                    + settings.clockSkewSeconds() + " s)");
        }
        Long nbfMs = numericDateMs(claims, "nbf");
        if (nbfMs != null && nowMs + skewMs < nbfMs) {
            throw new InvalidTokenException("not valid before " + nbfMs / 1000 + " (now " + nowMs / 1000 + ")");
        }
        Long iatMs = numericDateMs(claims, "iat");
        if (iatMs != null && nowMs + skewMs < iatMs) {
            throw new InvalidTokenException("issued in the future, at " + iatMs / 1000 + " (now " + nowMs / 1000 + ")");
        }
        if (settings.expectedIssuer() != null) {
            String issuer = claims.path("iss").isTextual() ? claims.get("iss").asText() : null;
            if (!settings.expectedIssuer().equals(issuer)) {
                throw new InvalidTokenException("issuer " + (issuer == null ? "missing" : "'" + issuer + "'")
                        + ", expected '" + settings.expectedIssuer() + "'");
            }
        }
        if (!settings.expectedAudiences().isEmpty()) {
            Set<String> audiences = strings(claims.get("aud"), false);
            if (audiences.stream().noneMatch(settings.expectedAudiences()::contains)) {
                throw new InvalidTokenException("audience " + (audiences.isEmpty() ? "missing" : audiences)
                        + ", expected one of " + settings.expectedAudiences());
            }
        }
        JsonNode subject = claims.get(settings.subClaimName());
        if (subject == null || !subject.isTextual() || subject.asText().isBlank()) {
            throw new InvalidTokenException("no " + settings.subClaimName() + " claim naming the principal");
        }
        Set<String> scopes = strings(claims.get(settings.scopeClaimName()), true);
        return new ValidToken(subject.asText().trim(), expMs, scopes);
    }

    /** A NumericDate claim in milliseconds; null when absent. */
    private static Long numericDateMs(JsonNode claims, String name) throws InvalidTokenException {
        JsonNode value = claims.get(name);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw new InvalidTokenException("the " + name + " claim is not a number of seconds");
        }
        double seconds = value.asDouble();
        if (seconds < 0 || seconds > Long.MAX_VALUE / 2000.0) {
            throw new InvalidTokenException("the " + name + " claim is out of range");
        }
        return (long) (seconds * 1000);
    }

    /** A string or an array of strings; a scope string holds several, separated by spaces (RFC 8693). */
    private static Set<String> strings(JsonNode value, boolean splitOnSpaces) {
        Set<String> out = new LinkedHashSet<>();
        if (value == null) {
            return out;
        }
        if (value.isTextual()) {
            for (String s : splitOnSpaces ? value.asText().split(" ") : new String[] {value.asText()}) {
                if (!s.isBlank()) {
                    out.add(s.trim());
                }
            }
        } else if (value.isArray()) {
            value.forEach(v -> {
                if (v.isTextual()) {
                    out.add(v.asText());
                }
            });
        }
        return out;
    }

    private static JsonNode json(String part, String what) throws InvalidTokenException {
        try {
            JsonNode node = JSON.readTree(decode(part, what));
            if (node == null || !node.isObject()) {
                throw new InvalidTokenException("the " + what + " is not a JSON object");
            }
            return node;
        } catch (java.io.IOException e) {
            throw new InvalidTokenException("the " + what + " is not JSON");
        }
    }

    private static byte[] decode(String part, String what) throws InvalidTokenException {
        try {
            return BASE64URL.decode(part);
        } catch (IllegalArgumentException e) {
            throw new InvalidTokenException("the " + what + " is not base64url");
        }
    }
}
