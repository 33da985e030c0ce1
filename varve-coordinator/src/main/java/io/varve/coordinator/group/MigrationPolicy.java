package io.varve.coordinator.group;

import java.util.Locale;

/**
 * {@code group.consumer.migration.policy}: whether a non-empty classic group may become a consumer group when a
 * member joins with the consumer protocol (upgrade), and a consumer group whose last consumer-protocol member leaves
 * may become a classic group again (downgrade). Empty groups change type whatever the policy.
 */
public enum MigrationPolicy {
    BIDIRECTIONAL(true, true),
    UPGRADE(true, false),
    DOWNGRADE(false, true),
    DISABLED(false, false);

    private final boolean upgrade;
    private final boolean downgrade;

    MigrationPolicy(boolean upgrade, boolean downgrade) {
        this.upgrade = upgrade;
        this.downgrade = downgrade;
    }

    public boolean allowsUpgrade() {
        return upgrade;
    }

    public boolean allowsDowngrade() {
        return downgrade;
    }

    /** Kafka's value names, case-insensitive; null when the text names no policy. */
    public static MigrationPolicy parse(String text) {
        for (MigrationPolicy p : values()) {
            if (p.name().equalsIgnoreCase(text == null ? "" : text.trim())) {
                return p;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
