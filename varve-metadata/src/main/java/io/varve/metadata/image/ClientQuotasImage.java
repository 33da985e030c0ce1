package io.varve.metadata.image;

import io.varve.metadata.record.ClientQuotaRecord;
import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Every client quota: per entity (entity type to name, a null name for the type's default entity, as in {@link
 * ClientQuotaRecord}) its quota keys and values. Immutable; what brokers throttle by and DescribeClientQuotas lists.
 */
public record ClientQuotasImage(Map<Map<String, String>, Map<String, Double>> entities) {
    public static final ClientQuotasImage EMPTY = new ClientQuotasImage(Map.of());

    public ClientQuotasImage {
        Map<Map<String, String>, Map<String, Double>> copy = new LinkedHashMap<>();
        entities.forEach((entity, quotas) -> {
            if (!quotas.isEmpty()) {
                copy.put(
                        Collections.unmodifiableMap(new TreeMap<>(entity)),
                        Collections.unmodifiableMap(new TreeMap<>(quotas)));
            }
        });
        entities = Collections.unmodifiableMap(copy);
    }

    /** The quotas of exactly this entity (empty when it has none). */
    public Map<String, Double> quotas(Map<String, String> entity) {
        return entities.getOrDefault(entity, Map.of());
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        entities.forEach((entity, quotas) ->
                quotas.forEach((key, value) -> out.accept(new ClientQuotaRecord(entity, key, value, false))));
    }
}
