package io.varve.coordinator.share;

/**
 * The states of an in-flight record of a share-partition. AVAILABLE → ACQUIRED (a fetch); ACQUIRED → ACKNOWLEDGED
 * (accept), → AVAILABLE (release, or its lock expired), → ARCHIVED (reject, or release/expiry at the delivery count
 * limit). ACKNOWLEDGED and ARCHIVED are final.
 */
public enum RecordState {
    AVAILABLE((byte) 0),
    ACQUIRED((byte) 1),
    ACKNOWLEDGED((byte) 2),
    ARCHIVED((byte) 4);

    /** The code Kafka's share-group state uses for it (persisted as is). */
    private final byte code;

    RecordState(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }

    public static RecordState ofCode(byte code) {
        for (RecordState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown record state code " + code);
    }

    public boolean isFinal() {
        return this == ACKNOWLEDGED || this == ARCHIVED;
    }
}
