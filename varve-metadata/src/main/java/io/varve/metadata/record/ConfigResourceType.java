package io.varve.metadata.record;

/** The kind of resource a {@link ConfigRecord} configures. Codes match Kafka's ConfigResource types. */
public enum ConfigResourceType {
    TOPIC((byte) 2),
    BROKER((byte) 4),
    /** A client-metrics subscription (KIP-714): which metrics which clients push, and how often. */
    CLIENT_METRICS((byte) 16),
    /** A group's own settings (KIP-848 and its successors: {@code kafka-configs --entity-type groups}). */
    GROUP((byte) 32);

    private final byte code;

    ConfigResourceType(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }

    public static ConfigResourceType fromCode(byte code) {
        for (ConfigResourceType type : values()) {
            if (type.code == code) {
                return type;
            }
        }
        throw new MetadataRecordFormatException("unknown config resource type code " + code);
    }
}
