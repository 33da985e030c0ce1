package io.varve.metadata.config;

/**
 * Where a config value comes from, in Kafka's DescribeConfigs terms, highest precedence first.
 * Codes are Kafka's wire codes.
 */
public enum ConfigSource {
    /** A group's own setting (resource type GROUP). */
    DYNAMIC_GROUP_CONFIG((byte) 8),
    DYNAMIC_TOPIC_CONFIG((byte) 1),
    DYNAMIC_BROKER_CONFIG((byte) 2),
    DYNAMIC_DEFAULT_BROKER_CONFIG((byte) 3),
    STATIC_BROKER_CONFIG((byte) 4),
    DEFAULT_CONFIG((byte) 5);

    private final byte code;

    ConfigSource(byte code) {
        this.code = code;
    }

    public byte code() {
        return code;
    }
}
