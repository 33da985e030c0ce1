package io.varve.storage;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The values of Kafka's {@code cleanup.policy} list. */
public enum CleanupPolicy {
    /** Old segments are deleted by retention.ms / retention.bytes. */
    DELETE,
    /** Old segments are compacted to the latest record per key. */
    COMPACT;

    /** Kafka's spelling: "delete" or "compact". */
    public String configValue() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a {@code cleanup.policy} list such as "compact,delete" (case-insensitive, blanks ignored).
     *
     * @throws IllegalArgumentException on an unknown value
     */
    public static Set<CleanupPolicy> parseList(String list) {
        Set<CleanupPolicy> policies = EnumSet.noneOf(CleanupPolicy.class);
        for (String item : list.split(",")) {
            String value = item.trim();
            if (value.isEmpty()) {
                continue;
            }
            try {
                policies.add(valueOf(value.toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "Unknown cleanup.policy value '" + value + "': expected delete or compact");
            }
        }
        return Set.copyOf(policies);
    }
}
