package io.varve.metadata.record;

import java.util.Objects;

/** Removes a user's SCRAM credential for one mechanism. */
public record RemoveUserScramCredentialRecord(String name, byte mechanism) implements MetadataRecord {

    public RemoveUserScramCredentialRecord {
        Objects.requireNonNull(name, "name");
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REMOVE_USER_SCRAM_CREDENTIAL;
    }
}
