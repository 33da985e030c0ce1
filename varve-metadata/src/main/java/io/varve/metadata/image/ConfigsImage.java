package io.varve.metadata.image;

import io.varve.metadata.record.ConfigRecord;
import io.varve.metadata.record.MetadataRecord;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/** Explicitly set configs (overrides of the defaults) per resource. Immutable. */
public final class ConfigsImage {

    public static final ConfigsImage EMPTY = new ConfigsImage(Map.of());

    private final Map<ConfigResource, Map<String, String>> data;

    ConfigsImage(Map<ConfigResource, Map<String, String>> data) {
        Map<ConfigResource, Map<String, String>> copy = new HashMap<>(data.size() * 2);
        data.forEach((resource, configs) -> {
            if (!configs.isEmpty()) {
                copy.put(resource, Map.copyOf(configs));
            }
        });
        this.data = Collections.unmodifiableMap(copy);
    }

    /** The configs set on the resource (empty if none). */
    public Map<String, String> configs(ConfigResource resource) {
        return data.getOrDefault(resource, Map.of());
    }

    public Map<String, String> topicConfigs(String topicName) {
        return configs(ConfigResource.topic(topicName));
    }

    public Map<ConfigResource, Map<String, String>> resources() {
        return data;
    }

    void writeRecords(Consumer<MetadataRecord> out) {
        data.keySet().stream()
                .sorted(Comparator.comparing(ConfigResource::type).thenComparing(ConfigResource::name))
                .forEach(resource -> new TreeMap<>(data.get(resource))
                        .forEach((name, value) ->
                                out.accept(new ConfigRecord(resource.type(), resource.name(), name, value))));
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ConfigsImage that && data.equals(that.data);
    }

    @Override
    public int hashCode() {
        return data.hashCode();
    }

    @Override
    public String toString() {
        return "ConfigsImage(" + data + ")";
    }
}
