package io.varve.metadata.config;

/** Checks a parsed config value. */
@FunctionalInterface
public interface ConfigValidator {

    ConfigValidator NONE = value -> {};

    /** @throws IllegalArgumentException with the reason if the value is not acceptable */
    void ensureValid(Object value);
}
