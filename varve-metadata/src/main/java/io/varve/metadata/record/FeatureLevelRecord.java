package io.varve.metadata.record;

import java.util.Objects;

/**
 * The finalized level of a feature ({@code metadata.version}, {@code transaction.version} …) is
 * now {@code featureLevel}; level 0 removes the feature (it is then "not finalized").
 */
public record FeatureLevelRecord(String name, short featureLevel) implements MetadataRecord {

    public FeatureLevelRecord {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("feature name must not be empty");
        }
        if (featureLevel < 0) {
            throw new IllegalArgumentException("featureLevel must be >= 0: " + featureLevel);
        }
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.FEATURE_LEVEL;
    }
}
