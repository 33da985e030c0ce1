package io.varve.metadata.image;

import io.varve.metadata.record.ConfigRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/** Config changes on top of a base {@link ConfigsImage}: the new complete configs of each touched resource. */
public final class ConfigsDelta {

    private final ConfigsImage base;
    private final Map<ConfigResource, Map<String, String>> changed = new HashMap<>();

    ConfigsDelta(ConfigsImage base) {
        this.base = base;
    }

    /** New configs of each changed resource; an empty map means all its configs were removed. */
    public Map<ConfigResource, Map<String, String>> changedResources() {
        return Collections.unmodifiableMap(changed);
    }

    void replay(ConfigRecord record) {
        ConfigResource resource = new ConfigResource(record.resourceType(), record.resourceName());
        Map<String, String> configs = changed.computeIfAbsent(resource, r -> new HashMap<>(base.configs(r)));
        if (record.value() == null) {
            configs.remove(record.name());
        } else {
            configs.put(record.name(), record.value());
        }
    }

    void removeResource(ConfigResource resource) {
        if (changed.containsKey(resource) || !base.configs(resource).isEmpty()) {
            changed.put(resource, new HashMap<>());
        }
    }

    ConfigsImage apply() {
        Map<ConfigResource, Map<String, String>> next = new HashMap<>(base.resources());
        next.putAll(changed);
        return new ConfigsImage(next);
    }
}
