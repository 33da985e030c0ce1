package io.varve.coordinator.group.record;

import java.util.Arrays;

/** One key/value pair for {@code __consumer_offsets}; {@code value} null is a tombstone. */
public record CoordinatorRecord(byte[] key, byte[] value) {
    public CoordinatorRecord {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException("a coordinator record needs a key");
        }
    }

    public boolean isTombstone() {
        return value == null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CoordinatorRecord r && Arrays.equals(key, r.key) && Arrays.equals(value, r.value);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(key) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "CoordinatorRecord(key " + key.length + " bytes, "
                + (value == null ? "tombstone" : value.length + " bytes") + ")";
    }
}
