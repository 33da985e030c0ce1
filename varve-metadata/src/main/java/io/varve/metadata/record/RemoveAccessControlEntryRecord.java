package io.varve.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/** Removes the ACL with this id. */
public record RemoveAccessControlEntryRecord(Uuid id) implements MetadataRecord {

    public RemoveAccessControlEntryRecord {
        Objects.requireNonNull(id, "id");
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY;
    }
}
