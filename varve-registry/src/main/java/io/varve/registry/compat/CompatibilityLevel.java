package io.varve.registry.compat;

import io.varve.registry.RegistryException;
import java.util.Locale;

/**
 * Confluent's compatibility levels. BACKWARD: the new schema reads data written with the previous one; FORWARD: the
 * previous schema reads data written with the new one; FULL: both; transitive levels check every earlier live
 * version instead of the latest only.
 */
public enum CompatibilityLevel {
    NONE(false, false, false),
    BACKWARD(true, false, false),
    BACKWARD_TRANSITIVE(true, false, true),
    FORWARD(false, true, false),
    FORWARD_TRANSITIVE(false, true, true),
    FULL(true, true, false),
    FULL_TRANSITIVE(true, true, true);

    public static final CompatibilityLevel DEFAULT = BACKWARD;

    private final boolean backward;
    private final boolean forward;
    private final boolean transitive;

    CompatibilityLevel(boolean backward, boolean forward, boolean transitive) {
        this.backward = backward;
        this.forward = forward;
        this.transitive = transitive;
    }

    public boolean backward() {
        return backward;
    }

    public boolean forward() {
        return forward;
    }

    public boolean transitive() {
        return transitive;
    }

    /** The level named {@code name} in any case, or 42203. */
    public static CompatibilityLevel parse(String name) {
        if (name == null) {
            throw RegistryException.invalidCompatibilityLevel("null");
        }
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw RegistryException.invalidCompatibilityLevel(name);
        }
    }
}
