package io.varve.security.sasl;

import java.util.Arrays;

/** A user's SCRAM credential (RFC 5802 section 3): the password itself is never kept. */
public record ScramCredential(byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {

    public ScramCredential {
        salt = salt.clone();
        storedKey = storedKey.clone();
        serverKey = serverKey.clone();
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
    public boolean equals(Object o) {
        return o instanceof ScramCredential c
                && iterations == c.iterations
                && Arrays.equals(salt, c.salt)
                && Arrays.equals(storedKey, c.storedKey)
                && Arrays.equals(serverKey, c.serverKey);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(storedKey) * 31 + iterations;
    }

    @Override
    public String toString() {
        return "ScramCredential(iterations=" + iterations + ")";
    }
}
