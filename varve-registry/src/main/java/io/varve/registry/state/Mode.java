package io.varve.registry.state;

import io.varve.registry.RegistryException;
import java.util.Locale;

/** Confluent's registry modes: READWRITE (default), READONLY (no writes), IMPORT (writes with explicit ids). */
public enum Mode {
    READWRITE,
    READONLY,
    IMPORT;

    public static Mode parse(String name) {
        if (name == null) {
            throw RegistryException.invalidMode("null");
        }
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw RegistryException.invalidMode(name);
        }
    }
}
