package io.varve.metadata.record;

import java.util.List;
import java.util.Objects;

/**
 * A delegation token issued or renewed (Kafka's DelegationTokenRecord): its id, owner, the principal that asked for it,
 * who may renew it, and its issue, maximum and current expiry times (epoch ms). Principals are written as {@code
 * Type:name}. The HMAC is not in the log: every node derives it from the id and {@code delegation.token.secret.key}.
 */
public record DelegationTokenRecord(
        String tokenId,
        String owner,
        String requester,
        List<String> renewers,
        long issueTimestampMs,
        long maxTimestampMs,
        long expiryTimestampMs)
        implements MetadataRecord {

    public DelegationTokenRecord {
        Objects.requireNonNull(tokenId, "tokenId");
        Objects.requireNonNull(owner, "owner");
        Objects.requireNonNull(requester, "requester");
        renewers = List.copyOf(renewers);
        if (expiryTimestampMs > maxTimestampMs) {
            throw new IllegalArgumentException("a token cannot expire after its maximum lifetime: " + tokenId);
        }
    }

    /** The same token with a new expiry time (a renewal or an expiry set earlier). */
    public DelegationTokenRecord withExpiry(long newExpiryTimestampMs) {
        return new DelegationTokenRecord(
                tokenId, owner, requester, renewers, issueTimestampMs, maxTimestampMs, newExpiryTimestampMs);
    }

    /** Whether {@code principal} ({@code Type:name}) always sees this token and matches it as an owner, as in Kafka. */
    public boolean ownerOrRenewer(String principal) {
        return owner.equals(principal) || requester.equals(principal) || renewers.contains(principal);
    }

    /** Whether {@code principal} may renew or expire this token: its owner or a renewer (not its requester), as in Kafka. */
    public boolean mayRenew(String principal) {
        return owner.equals(principal) || renewers.contains(principal);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.DELEGATION_TOKEN;
    }
}
