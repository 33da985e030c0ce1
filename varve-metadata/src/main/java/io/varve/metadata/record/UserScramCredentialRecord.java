package io.varve.metadata.record;

import java.util.Arrays;
import java.util.Objects;

/**
 * Sets a user's SCRAM credential for one mechanism (the wire protocol's type id: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512):
 * salt, stored key, server key and iteration count (RFC 5802). The password is never in the log.
 */
public record UserScramCredentialRecord(
        String name, byte mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, int iterations)
        implements MetadataRecord {

    public UserScramCredentialRecord {
        Objects.requireNonNull(name, "name");
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
        if (iterations <= 0) {
            throw new IllegalArgumentException("iterations must be positive: " + iterations);
        }
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.USER_SCRAM_CREDENTIAL;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof UserScramCredentialRecord r
                && name.equals(r.name)
                && mechanism == r.mechanism
                && iterations == r.iterations
                && Arrays.equals(salt, r.salt)
                && Arrays.equals(storedKey, r.storedKey)
                && Arrays.equals(serverKey, r.serverKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, mechanism, iterations, Arrays.hashCode(storedKey));
    }

    @Override
    public String toString() {
        return "UserScramCredentialRecord(" + name + ", mechanism " + mechanism + ", iterations " + iterations + ")";
    }
}
