package io.varve.security.oauthbearer;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * The public keys of a JSON Web Key Set (RFC 7517): RSA keys and EC keys on P-256, P-384 and P-521. Keys of another
 * type, or meant for encryption ({@code "use":"enc"}), are left out: a JWKS endpoint commonly publishes both, and a
 * signature can only be checked with a signing key. A key that is there but malformed makes the whole set invalid, so
 * a broken endpoint is noticed rather than half read.
 */
public final class JsonWebKeySet {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> CURVES =
            Map.of("P-256", "secp256r1", "P-384", "secp384r1", "P-521", "secp521r1");

    /** One signing key: its id and algorithm as published (either may be null), and the key. */
    public record Key(String keyId, String algorithm, String curve, PublicKey publicKey) {
        boolean isRsa() {
            return publicKey.getAlgorithm().equals("RSA");
        }
    }

    private final List<Key> keys;

    private JsonWebKeySet(List<Key> keys) {
        this.keys = List.copyOf(keys);
    }

    public static JsonWebKeySet of(List<Key> keys) {
        return new JsonWebKeySet(keys);
    }

    public List<Key> keys() {
        return keys;
    }

    /** Parses a JWKS document; {@code source} names it in the message of an {@link IllegalArgumentException}. */
    public static JsonWebKeySet parse(String json, String source) {
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(source + " is not JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.path("keys").isArray()) {
            throw new IllegalArgumentException(source + " is not a JSON Web Key Set: no \"keys\" array");
        }
        List<Key> keys = new ArrayList<>();
        for (JsonNode jwk : root.get("keys")) {
            String use = text(jwk, "use");
            if (use != null && !use.equals("sig")) {
                continue;
            }
            String kty = text(jwk, "kty");
            String kid = text(jwk, "kid");
            try {
                if ("RSA".equals(kty)) {
                    BigInteger n = unsigned(jwk, "n");
                    BigInteger e = unsigned(jwk, "e");
                    PublicKey key = KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(n, e));
                    keys.add(new Key(kid, text(jwk, "alg"), null, key));
                } else if ("EC".equals(kty)) {
                    String crv = text(jwk, "crv");
                    String curve = CURVES.get(crv);
                    if (curve == null) {
                        continue;
                    }
                    AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
                    parameters.init(new ECGenParameterSpec(curve));
                    ECParameterSpec spec = parameters.getParameterSpec(ECParameterSpec.class);
                    ECPoint point = new ECPoint(unsigned(jwk, "x"), unsigned(jwk, "y"));
                    PublicKey key = KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(point, spec));
                    keys.add(new Key(kid, text(jwk, "alg"), crv, key));
                }
            } catch (GeneralSecurityException | IllegalArgumentException e) {
                throw new IllegalArgumentException(source + " has a malformed " + kty + " key"
                        + (kid == null ? "" : " '" + kid + "'") + ": " + e.getMessage());
            }
        }
        return new JsonWebKeySet(keys);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value != null && value.isTextual() ? value.asText() : null;
    }

    private static BigInteger unsigned(JsonNode jwk, String field) {
        String value = text(jwk, field);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("no \"" + field + "\"");
        }
        return new BigInteger(1, Base64.getUrlDecoder().decode(value));
    }
}
