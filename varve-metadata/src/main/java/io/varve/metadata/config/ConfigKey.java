package io.varve.metadata.config;

import java.util.Objects;

/**
 * One accepted config: its name, type, default (as a string, parsed like a user value) and
 * validator. {@code deprecatedNoOp} marks keys accepted for compatibility that have no effect.
 */
public record ConfigKey(
        String name,
        ConfigType type,
        String defaultValue,
        ConfigValidator validator,
        String documentation,
        boolean deprecatedNoOp) {

    public ConfigKey {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(defaultValue, "defaultValue");
        Objects.requireNonNull(validator, "validator");
        Objects.requireNonNull(documentation, "documentation");
    }

    /**
     * Parses and validates a value.
     *
     * @throws IllegalArgumentException with the reason if it is invalid
     */
    public Object parse(String value) {
        Object parsed = type.parse(value);
        validator.ensureValid(parsed);
        return parsed;
    }

    public Object parsedDefault() {
        return parse(defaultValue);
    }
}
