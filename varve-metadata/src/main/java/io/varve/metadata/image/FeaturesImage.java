package io.varve.metadata.image;

import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/** The finalized level of each feature; a feature not listed is at level 0. Immutable. */
public final class FeaturesImage {

    public static final String METADATA_VERSION = "metadata.version";

    public static final FeaturesImage EMPTY = new FeaturesImage(Map.of());

    private final Map<String, Short> finalizedLevels;

    FeaturesImage(Map<String, Short> finalizedLevels) {
        TreeMap<String, Short> sorted = new TreeMap<>();
        finalizedLevels.forEach((name, level) -> {
            if (level > 0) {
                sorted.put(name, level);
            }
        });
        this.finalizedLevels = Collections.unmodifiableMap(sorted);
    }

    /** Every finalized feature with a level above 0, sorted by name. */
    public Map<String, Short> finalizedLevels() {
        return finalizedLevels;
    }

    /** The finalized level of the feature, 0 if it is not finalized. */
    public short level(String feature) {
        return finalizedLevels.getOrDefault(feature, (short) 0);
    }

    /** {@code metadata.version} first: readers of a snapshot need it before anything else. */
    void writeRecords(Consumer<MetadataRecord> out) {
        Short metadataVersion = finalizedLevels.get(METADATA_VERSION);
        if (metadataVersion != null) {
            out.accept(new FeatureLevelRecord(METADATA_VERSION, metadataVersion));
        }
        finalizedLevels.forEach((name, level) -> {
            if (!name.equals(METADATA_VERSION)) {
                out.accept(new FeatureLevelRecord(name, level));
            }
        });
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof FeaturesImage that && finalizedLevels.equals(that.finalizedLevels);
    }

    @Override
    public int hashCode() {
        return finalizedLevels.hashCode();
    }

    @Override
    public String toString() {
        return "FeaturesImage(" + finalizedLevels + ")";
    }
}
