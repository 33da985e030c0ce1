package io.varve.metadata.controller;

import java.util.Objects;

/**
 * One operation of an IncrementalAlterConfigs request on one config key.
 *
 * @param value the operand; ignored (and may be null) for {@link Op#DELETE}
 */
public record ConfigChange(String name, Op op, String value) {

    /** Kafka's AlterConfigOp types, with their wire ids. */
    public enum Op {
        SET((byte) 0),
        DELETE((byte) 1),
        /** Adds list elements not already present (starting from the default when unset). */
        APPEND((byte) 2),
        /** Removes list elements. */
        SUBTRACT((byte) 3);

        private final byte id;

        Op(byte id) {
            this.id = id;
        }

        public byte id() {
            return id;
        }

        /** The op with this wire id, or null if there is none. */
        public static Op forId(byte id) {
            for (Op op : values()) {
                if (op.id == id) {
                    return op;
                }
            }
            return null;
        }
    }

    public ConfigChange {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(op, "op");
    }

    public static ConfigChange set(String name, String value) {
        return new ConfigChange(name, Op.SET, value);
    }

    public static ConfigChange delete(String name) {
        return new ConfigChange(name, Op.DELETE, null);
    }
}
