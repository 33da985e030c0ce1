package io.varve.metadata.config;

import java.util.Objects;

/** One layer that sets a config (under this name, possibly a broker synonym of a topic key). */
public record ConfigSynonym(String name, String value, ConfigSource source) {

    public ConfigSynonym {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(source, "source");
    }
}
