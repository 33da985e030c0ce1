package io.varve.metadata.record;

/** The kind of resource a {@link ConfigRecord} configures. Codes match Kafka's ConfigResource types. */
public enum ConfigResourceType {
    TOPIC((byte) 2),
    BROKER((byte) 4);

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
