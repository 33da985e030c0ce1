package io.varve.metadata.image;

import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.metadata.record.RemoveAccessControlEntryRecord;
import java.util.LinkedHashMap;
import java.util.Map;

/** ACL changes on top of a base {@link AclsImage}. */
public final class AclsDelta {
    private final Map<org.apache.kafka.common.Uuid, AccessControlEntryRecord> acls;

    AclsDelta(AclsImage base) {
        this.acls = new LinkedHashMap<>(base.acls());
    }

    void replay(AccessControlEntryRecord record) {
        if (acls.putIfAbsent(record.id(), record) != null) {
            throw new IllegalStateException("ACL id " + record.id() + " created twice");
        }
    }

    void replay(RemoveAccessControlEntryRecord record) {
        if (acls.remove(record.id()) == null) {
            throw new IllegalStateException("no ACL with id " + record.id() + " to remove");
        }
    }

    AclsImage apply() {
        return new AclsImage(acls);
    }
}
