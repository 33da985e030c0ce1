package io.varve.metadata.record;

/** How a {@link BrokerRegistrationChangeRecord} changes one boolean flag of a registration. */
public enum BrokerFlagChange {
    UNCHANGED((byte) 0),
    SET((byte) 1),
    CLEARED((byte) -1);

    private final byte code;

    BrokerFlagChange(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }

    /** The flag after this change of {@code current}. */
    public boolean applyTo(boolean current) {
        return switch (this) {
            case UNCHANGED -> current;
            case SET -> true;
            case CLEARED -> false;
        };
    }

    public static BrokerFlagChange fromCode(byte code) {
        for (BrokerFlagChange change : values()) {
            if (change.code == code) {
                return change;
            }
        }
        throw new MetadataRecordFormatException("unknown broker flag change code " + code);
    }
}
