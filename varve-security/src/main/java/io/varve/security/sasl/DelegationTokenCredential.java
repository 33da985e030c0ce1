package io.varve.security.sasl;

import io.varve.security.Principal;
import java.util.Objects;

/**
 * What a {@code tokenauth=true} SCRAM exchange proves a client against: the SCRAM credential derived from the token's
 * HMAC (the client's password), the token's owner (the principal the connection gets) and when the token expires
 * (epoch ms; it bounds the session, KIP-368).
 */
public record DelegationTokenCredential(ScramCredential credential, Principal owner, long expiryTimestampMs) {
    public DelegationTokenCredential {
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(owner, "owner");
    }
}
