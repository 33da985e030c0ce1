package io.varve.security.oauthbearer;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;

/** Key pairs, their JWKS entries and signed tokens, for the tests of this package. */
final class TestTokens {
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    static KeyPair rsa() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    static KeyPair ec() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    static String jwk(String kid, KeyPair pair) {
        if (pair.getPublic() instanceof RSAPublicKey rsa) {
            return "{\"kty\":\"RSA\",\"kid\":\"" + kid + "\",\"use\":\"sig\",\"n\":\"" + unsigned(rsa.getModulus())
                    + "\",\"e\":\"" + unsigned(rsa.getPublicExponent()) + "\"}";
        }
        ECPublicKey ec = (ECPublicKey) pair.getPublic();
        return "{\"kty\":\"EC\",\"kid\":\"" + kid + "\",\"crv\":\"P-256\",\"x\":\""
                + unsigned(ec.getW().getAffineX(), 32) + "\",\"y\":\""
                + unsigned(ec.getW().getAffineY(), 32) + "\"}";
    }

    static String jwks(String... jwks) {
        return "{\"keys\":[" + String.join(",", jwks) + "]}";
    }

    static String sign(String alg, String kid, KeyPair pair, String claimsJson) throws Exception {
        String header =
                "{\"alg\":\"" + alg + "\",\"typ\":\"JWT\"" + (kid == null ? "" : ",\"kid\":\"" + kid + "\"") + "}";
        String signingInput =
                URL.encodeToString(header.getBytes(UTF_8)) + "." + URL.encodeToString(claimsJson.getBytes(UTF_8));
        Signature signer =
                Signature.getInstance(alg.startsWith("ES") ? "SHA256withECDSAinP1363Format" : "SHA256withRSA");
        signer.initSign(pair.getPrivate());
        signer.update(signingInput.getBytes(UTF_8));
        return signingInput + "." + URL.encodeToString(signer.sign());
    }

    private static String unsigned(BigInteger value) {
        byte[] bytes = value.toByteArray();
        int start = bytes.length > 1 && bytes[0] == 0 ? 1 : 0;
        byte[] trimmed = new byte[bytes.length - start];
        System.arraycopy(bytes, start, trimmed, 0, trimmed.length);
        return URL.encodeToString(trimmed);
    }

    private static String unsigned(BigInteger value, int length) {
        byte[] bytes = value.toByteArray();
        byte[] out = new byte[length];
        int copy = Math.min(bytes.length, length);
        System.arraycopy(bytes, bytes.length - copy, out, length - copy, copy);
        return URL.encodeToString(out);
    }

    private TestTokens() {}
}
