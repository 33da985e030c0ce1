package io.varve.metadata.controller.quota;

import java.util.Map;
import java.util.Optional;

/**
 * The entity types and quota keys of Kafka's client quotas, and which values each key takes. User and client-id
 * entities take the bandwidth, request and mutation quotas; ip entities only {@code connection_creation_rate}.
 */
public final class ClientQuotaKeys {
    public static final String USER = "user";
    public static final String CLIENT_ID = "client-id";
    public static final String IP = "ip";

    public static final String PRODUCER_BYTE_RATE = "producer_byte_rate";
    public static final String CONSUMER_BYTE_RATE = "consumer_byte_rate";
    public static final String REQUEST_PERCENTAGE = "request_percentage";
    public static final String CONTROLLER_MUTATION_RATE = "controller_mutation_rate";
    public static final String CONNECTION_CREATION_RATE = "connection_creation_rate";

    /** How a key's value is checked: integral keys refuse fractions, as Kafka's LONG and INT config types do. */
    enum ValueType {
        LONG,
        INT,
        DOUBLE
    }

    private static final Map<String, ValueType> CLIENT_KEYS = Map.of(
            PRODUCER_BYTE_RATE, ValueType.LONG,
            CONSUMER_BYTE_RATE, ValueType.LONG,
            REQUEST_PERCENTAGE, ValueType.DOUBLE,
            CONTROLLER_MUTATION_RATE, ValueType.DOUBLE);
    private static final Map<String, ValueType> IP_KEYS = Map.of(CONNECTION_CREATION_RATE, ValueType.INT);

    /** Why {@code value} cannot be {@code key}'s for an entity of these types, or empty when it can. */
    static Optional<String> checkValue(boolean ipEntity, String key, double value, boolean remove) {
        ValueType type = (ipEntity ? IP_KEYS : CLIENT_KEYS).get(key);
        if (type == null) {
            return Optional.of("Invalid configuration key " + key);
        }
        if (remove) {
            return Optional.empty();
        }
        if (Double.isNaN(value) || Double.isInfinite(value) || value <= 0) {
            return Optional.of("Configuration " + key + " must be a positive number: " + value);
        }
        if (type == ValueType.LONG && (value != Math.rint(value) || value > Long.MAX_VALUE)) {
            return Optional.of("Configuration " + key + " must be a Long value");
        }
        if (type == ValueType.INT && (value != Math.rint(value) || value > Integer.MAX_VALUE)) {
            return Optional.of("Configuration " + key + " must be an Int value");
        }
        return Optional.empty();
    }

    private ClientQuotaKeys() {}
}
