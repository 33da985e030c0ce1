package io.varve.metadata.config;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/** Value types of configs, parsed the way Kafka parses them (trimmed; lists split on commas). */
public enum ConfigType {
    BOOLEAN,
    INT,
    LONG,
    DOUBLE,
    STRING,
    LIST;

    /** Compiled once: String.split with a regex compiles it on every call. */
    private static final Pattern LIST_SEPARATOR = Pattern.compile("\\s*,\\s*");

    /**
     * Parses a value given as a string.
     *
     * @throws IllegalArgumentException with a Kafka-style reason if the value is not of this type
     */
    public Object parse(String value) {
        String trimmed = value.trim();
        switch (this) {
            case BOOLEAN:
                if (trimmed.equalsIgnoreCase("true")) {
                    return Boolean.TRUE;
                }
                if (trimmed.equalsIgnoreCase("false")) {
                    return Boolean.FALSE;
                }
                throw new IllegalArgumentException("Expected value to be either true or false");
            case INT:
                try {
                    return Integer.parseInt(trimmed);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("Not a number of type INT");
                }
            case LONG:
                try {
                    return Long.parseLong(trimmed);
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("Not a number of type LONG");
                }
            case DOUBLE:
                try {
                    double parsed = Double.parseDouble(trimmed);
                    if (Double.isNaN(parsed)) {
                        throw new NumberFormatException();
                    }
                    return parsed;
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("Not a number of type DOUBLE");
                }
            case STRING:
                return trimmed;
            case LIST:
                if (trimmed.isEmpty()) {
                    return List.of();
                }
                return Arrays.stream(LIST_SEPARATOR.split(trimmed, -1)).toList();
            default:
                throw new IllegalStateException("unknown type " + this);
        }
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
