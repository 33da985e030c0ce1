package io.varve.metadata.controller.security;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.RemoveAccessControlEntryRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * CreateAcls and DeleteAcls on the controller, decided against its image so that concurrent changes cannot
 * interleave: creating an ACL that exists is a success that writes nothing (as Kafka), a deletion removes every ACL
 * its filter matches and reports them. The broker-side handlers have already checked each ACL's fields. Pure.
 */
public final class AclControl {

    /** @return the records of the ACLs not already present; the reply is nothing more than success */
    public ControllerResult<Void> create(MetadataImage image, List<AccessControlEntryRecord> acls) {
        List<MetadataRecord> records = new ArrayList<>();
        List<AccessControlEntryRecord> present =
                new ArrayList<>(image.acls().acls().values());
        for (AccessControlEntryRecord acl : acls) {
            if (present.stream().noneMatch(acl::sameAcl)) {
                records.add(acl);
                present.add(acl);
            }
        }
        return ControllerResult.of(records, null);
    }

    /** @return per filter the ACLs it matched (each ACL removed once, by the first filter that matches it) */
    public ControllerResult<List<List<AccessControlEntryRecord>>> delete(
            MetadataImage image, List<Predicate<AccessControlEntryRecord>> filters) {
        List<MetadataRecord> records = new ArrayList<>();
        List<List<AccessControlEntryRecord>> matched = new ArrayList<>();
        Set<org.apache.kafka.common.Uuid> removed = new HashSet<>();
        for (Predicate<AccessControlEntryRecord> filter : filters) {
            List<AccessControlEntryRecord> these = new ArrayList<>();
            for (AccessControlEntryRecord acl : image.acls().acls().values()) {
                if (filter.test(acl)) {
                    these.add(acl);
                    if (removed.add(acl.id())) {
                        records.add(new RemoveAccessControlEntryRecord(acl.id()));
                    }
                }
            }
            matched.add(these);
        }
        return ControllerResult.of(records, matched);
    }
}
