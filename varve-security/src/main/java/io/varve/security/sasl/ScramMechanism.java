package io.varve.security.sasl;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM mechanisms Kafka offers, with their hash, HMAC and the iteration bounds Kafka enforces (4096 at least,
 * so a stolen credential costs a guesser that much per password). The type ids are those of the wire protocol
 * (AlterUserScramCredentials, DescribeUserScramCredentials).
 */
public enum ScramMechanism {
    SCRAM_SHA_256("SCRAM-SHA-256", (byte) 1, "SHA-256", "HmacSHA256"),
    SCRAM_SHA_512("SCRAM-SHA-512", (byte) 2, "SHA-512", "HmacSHA512");

    public static final int MIN_ITERATIONS = 4096;
    public static final int MAX_ITERATIONS = 16384;

    private final String mechanismName;
    private final byte typeId;
    private final String hashAlgorithm;
    private final String macAlgorithm;

    ScramMechanism(String mechanismName, byte typeId, String hashAlgorithm, String macAlgorithm) {
        this.mechanismName = mechanismName;
        this.typeId = typeId;
        this.hashAlgorithm = hashAlgorithm;
        this.macAlgorithm = macAlgorithm;
    }

    public String mechanismName() {
        return mechanismName;
    }

    public byte typeId() {
        return typeId;
    }

    public static Optional<ScramMechanism> forName(String name) {
        for (ScramMechanism m : values()) {
            if (m.mechanismName.equals(name)) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    public static Optional<ScramMechanism> forTypeId(byte typeId) {
        for (ScramMechanism m : values()) {
            if (m.typeId == typeId) {
                return Optional.of(m);
            }
        }
        return Optional.empty();
    }

    byte[] hash(byte[] bytes) {
        try {
            return MessageDigest.getInstance(hashAlgorithm).digest(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(hashAlgorithm + " is part of every JDK", e);
        }
    }

    byte[] hmac(byte[] key, byte[] message) {
        try {
            Mac mac = Mac.getInstance(macAlgorithm);
            mac.init(new SecretKeySpec(key, macAlgorithm));
            return mac.doFinal(message);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException(macAlgorithm + " is part of every JDK", e);
        }
    }

    /** RFC 5802's Hi(): PBKDF2 with this mechanism's HMAC, one hash length of output. */
    public byte[] saltedPassword(String password, byte[] salt, int iterations) {
        byte[] key = password.getBytes(StandardCharsets.UTF_8);
        try {
            Mac mac = Mac.getInstance(macAlgorithm);
            mac.init(new SecretKeySpec(key, macAlgorithm));
            mac.update(salt);
            mac.update(new byte[] {0, 0, 0, 1});
            byte[] u = mac.doFinal();
            byte[] result = u.clone();
            for (int i = 1; i < iterations; i++) {
                u = mac.doFinal(u);
                for (int j = 0; j < result.length; j++) {
                    result[j] ^= u[j];
                }
            }
            return result;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(macAlgorithm + " is part of every JDK", e);
        }
    }

    /** The stored credential for a salted password: what the metadata log keeps instead of the password. */
    public ScramCredential credential(byte[] salt, byte[] saltedPassword, int iterations) {
        byte[] clientKey = hmac(saltedPassword, "Client Key".getBytes(StandardCharsets.US_ASCII));
        byte[] storedKey = hash(clientKey);
        byte[] serverKey = hmac(saltedPassword, "Server Key".getBytes(StandardCharsets.US_ASCII));
        return new ScramCredential(salt, storedKey, serverKey, iterations);
    }

    public ScramCredential credential(String password, byte[] salt, int iterations) {
        return credential(salt, saltedPassword(password, salt, iterations), iterations);
    }
}
