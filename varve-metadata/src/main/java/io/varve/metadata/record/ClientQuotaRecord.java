package io.varve.metadata.record;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Sets or removes one client quota value of one entity. The entity maps each of its entity types ({@code user},
 * {@code client-id}, {@code ip}) to a name, or to null for that type's default entity ({@code --entity-default}).
 * {@code remove} drops the key (its {@code value} is then ignored and written as 0). Kafka's ClientQuotaRecord has
 * the same fields; Varve's id for it is 15 (11 to 14 are the SCRAM and ACL records).
 */
public record ClientQuotaRecord(Map<String, String> entity, String key, double value, boolean remove)
        implements MetadataRecord {

    public ClientQuotaRecord {
        Objects.requireNonNull(entity, "entity");
        Objects.requireNonNull(key, "key");
        if (entity.isEmpty()) {
            throw new IllegalArgumentException("a client quota entity has at least one entity type");
        }
        TreeMap<String, String> sorted = new TreeMap<>();
        entity.forEach((type, name) -> sorted.put(Objects.requireNonNull(type, "entity type"), name));
        entity = Collections.unmodifiableMap(sorted);
        if (remove) {
            value = 0;
        }
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.CLIENT_QUOTA;
    }
}
