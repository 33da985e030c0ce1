package io.varve.metadata.image;

import io.varve.metadata.record.AccessControlEntryRecord;
import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;

/** Every ACL by id, in the order they were created. Immutable. */
public record AclsImage(Map<Uuid, AccessControlEntryRecord> acls) {
    public static final AclsImage EMPTY = new AclsImage(Map.of());

    public AclsImage {
        acls = Collections.unmodifiableMap(new LinkedHashMap<>(acls));
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        acls.values().forEach(out);
    }
}
