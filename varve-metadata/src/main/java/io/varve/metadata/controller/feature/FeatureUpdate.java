package io.varve.metadata.controller.feature;

import java.util.Objects;

/** One feature of an UpdateFeatures request: the level to finalize (0 removes it) and how. */
public record FeatureUpdate(short maxVersionLevel, UpgradeType upgradeType) {

    /** Kafka's FeatureUpdate upgrade types with their wire ids. */
    public enum UpgradeType {
        UPGRADE((byte) 1),
        SAFE_DOWNGRADE((byte) 2),
        UNSAFE_DOWNGRADE((byte) 3);

        private final byte id;

        UpgradeType(byte id) {
            this.id = id;
        }

        public byte id() {
            return id;
        }

        /** The type with this wire id, or null. */
        public static UpgradeType forId(byte id) {
            for (UpgradeType type : values()) {
                if (type.id == id) {
                    return type;
                }
            }
            return null;
        }

        boolean isDowngrade() {
            return this != UPGRADE;
        }
    }

    public FeatureUpdate {
        Objects.requireNonNull(upgradeType, "upgradeType");
    }

    public static FeatureUpdate upgrade(int level) {
        return new FeatureUpdate((short) level, UpgradeType.UPGRADE);
    }
}
