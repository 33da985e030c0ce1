package io.varve.metadata.record;

import java.util.Objects;

/** Removes a delegation token: expired by its owner or a renewer, or past its expiry time (Kafka's record of the name). */
public record RemoveDelegationTokenRecord(String tokenId) implements MetadataRecord {

    public RemoveDelegationTokenRecord {
        Objects.requireNonNull(tokenId, "tokenId");
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REMOVE_DELEGATION_TOKEN;
    }
}
