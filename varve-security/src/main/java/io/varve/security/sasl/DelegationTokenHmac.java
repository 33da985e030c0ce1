package io.varve.security.sasl;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A delegation token's HMAC: HMAC-SHA512 of the token id under {@code delegation.token.secret.key}, as Kafka computes
 * it. Every node derives it from the id, so the metadata log never holds it. A client authenticates with the token id
 * as SCRAM user name and the HMAC in base64 as password; {@link #scramCredential} is what the server checks that
 * against.
 */
public final class DelegationTokenHmac {
    private static final String ALGORITHM = "HmacSHA512";
    private static final SecureRandom SALTS = new SecureRandom();

    private final SecretKeySpec key;

    /** @param secretKey {@code delegation.token.secret.key}; not empty */
    public DelegationTokenHmac(String secretKey) {
        if (secretKey == null || secretKey.isEmpty()) {
            throw new IllegalArgumentException("delegation.token.secret.key must not be empty");
        }
        this.key = new SecretKeySpec(secretKey.getBytes(StandardCharsets.UTF_8), ALGORITHM);
    }

    public byte[] of(String tokenId) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac.doFinal(tokenId.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK has no " + ALGORITHM, e);
        }
    }

    /** Constant time: whether {@code hmac} is the one of {@code tokenId}. */
    public boolean matches(String tokenId, byte[] hmac) {
        return hmac != null && MessageDigest.isEqual(of(tokenId), hmac);
    }

    /** The SCRAM credential of the token's password (its HMAC in base64), with a fresh salt and Kafka's 4096 rounds. */
    public ScramCredential scramCredential(String tokenId, ScramMechanism mechanism) {
        byte[] salt = new byte[16];
        SALTS.nextBytes(salt);
        String password = Base64.getEncoder().encodeToString(of(tokenId));
        return mechanism.credential(password, salt, ScramMechanism.MIN_ITERATIONS);
    }
}
