package io.varve.metadata.image;

import io.varve.metadata.record.ClientQuotaRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** Client quota changes on top of a base {@link ClientQuotasImage}. */
public final class ClientQuotasDelta {
    private final Map<Map<String, String>, Map<String, Double>> entities = new LinkedHashMap<>();

    ClientQuotasDelta(ClientQuotasImage base) {
        base.entities().forEach((entity, quotas) -> entities.put(entity, new TreeMap<>(quotas)));
    }

    void replay(ClientQuotaRecord record) {
        Map<String, Double> quotas = entities.computeIfAbsent(record.entity(), e -> new TreeMap<>());
        if (record.remove()) {
            quotas.remove(record.key());
        } else {
            quotas.put(record.key(), record.value());
        }
    }

    ClientQuotasImage apply() {
        return new ClientQuotasImage(entities);
    }
}
