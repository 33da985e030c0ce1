package io.varve.metadata.image;

import io.varve.metadata.record.FeatureLevelRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** Finalized feature levels changed on top of a base {@link FeaturesImage}. */
public final class FeaturesDelta {

    private final FeaturesImage base;
    private final Map<String, Short> changedLevels = new HashMap<>();

    FeaturesDelta(FeaturesImage base) {
        this.base = base;
    }

    /** The new level of each feature a record named (0 = no longer finalized). */
    public Map<String, Short> changedLevels() {
        return Collections.unmodifiableMap(changedLevels);
    }

    void replay(FeatureLevelRecord record) {
        changedLevels.put(record.name(), record.featureLevel());
    }

    FeaturesImage apply() {
        Map<String, Short> next = new HashMap<>(base.finalizedLevels());
        next.putAll(changedLevels);
        return new FeaturesImage(next);
    }
}
