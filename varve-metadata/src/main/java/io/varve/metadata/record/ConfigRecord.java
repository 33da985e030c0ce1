package io.varve.metadata.record;

import java.util.Objects;

/**
 * Sets one config of a resource, or deletes it when {@code value} is null. For a broker,
 * {@code resourceName} is the broker id as a string, or empty for the cluster-wide default.
 */
public record ConfigRecord(ConfigResourceType resourceType, String resourceName, String name, String value)
        implements MetadataRecord {

    public ConfigRecord {
        Objects.requireNonNull(resourceType, "resourceType");
        Objects.requireNonNull(resourceName, "resourceName");
        Objects.requireNonNull(name, "name");
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.CONFIG;
    }
}
