package io.varve.metadata.config;

import java.util.List;
import java.util.Objects;

/**
 * The effective value of one config and how it came about.
 *
 * @param value    the effective value in the key's own unit; null when nothing sets it and it has no default
 * @param source   the layer that decided the value: the first synonym's, or DEFAULT_CONFIG without synonyms
 * @param synonyms every layer that sets the key or a synonym of it, highest precedence first
 */
public record ResolvedConfig(String name, String value, ConfigSource source, List<ConfigSynonym> synonyms) {

    public ResolvedConfig {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
        synonyms = List.copyOf(synonyms);
    }
}
