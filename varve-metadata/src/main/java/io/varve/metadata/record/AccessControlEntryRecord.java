package io.varve.metadata.record;

import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * One ACL, with the wire protocol's codes for resource type, pattern type, operation and permission; {@code id}
 * names it for its removal. Every broker enforces the ACLs its image holds.
 */
public record AccessControlEntryRecord(
        Uuid id,
        byte resourceType,
        String resourceName,
        byte patternType,
        String principal,
        String host,
        byte operation,
        byte permission)
        implements MetadataRecord {

    public AccessControlEntryRecord {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(resourceName, "resourceName");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(host, "host");
    }

    /** The same ACL, whatever its id. */
    public boolean sameAcl(AccessControlEntryRecord o) {
        return resourceType == o.resourceType
                && patternType == o.patternType
                && operation == o.operation
                && permission == o.permission
                && resourceName.equals(o.resourceName)
                && principal.equals(o.principal)
                && host.equals(o.host);
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.ACCESS_CONTROL_ENTRY;
    }
}
