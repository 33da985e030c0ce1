package io.varve.broker.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Typed definitions of configuration keys: name, type, default and bounds.
 * Parsing turns a raw string into a typed value or throws {@link ConfigException} with one clear sentence.
 */
public final class ConfigDef {

    public enum Type {
        INT,
        LONG,
        DOUBLE,
        BOOLEAN,
        STRING,
        LIST,
        CLASS,
        PASSWORD
    }

    /** One key. {@code applied} is false for Kafka keys we accept and ignore for now (logged once at start-up). */
    public record Key(
            String name,
            Type type,
            Object defaultValue,
            Number min,
            Number max,
            List<String> allowed,
            boolean applied) {
        Object parse(String raw) {
            String value = raw.trim();
            try {
                Object parsed =
                        switch (type) {
                            case INT -> Integer.parseInt(value);
                            case LONG -> Long.parseLong(value);
                            case DOUBLE -> Double.parseDouble(value);
                            case BOOLEAN -> parseBoolean(value);
                            case LIST ->
                                value.isEmpty()
                                        ? List.of()
                                        : Arrays.stream(value.split(","))
                                                .map(String::trim)
                                                .toList();
                            case STRING, CLASS, PASSWORD -> value;
                        };
                check(parsed);
                return parsed;
            } catch (NumberFormatException e) {
                throw new ConfigException(
                        "Invalid value '" + raw + "' for configuration " + name + ": expected " + typeName() + ".");
            }
        }

        private Object parseBoolean(String value) {
            if (value.equalsIgnoreCase("true")) {
                return Boolean.TRUE;
            }
            if (value.equalsIgnoreCase("false")) {
                return Boolean.FALSE;
            }
            throw new ConfigException(
                    "Invalid value '" + value + "' for configuration " + name + ": expected true or false.");
        }

        private void check(Object parsed) {
            if (parsed instanceof Number n) {
                if (min != null && n.doubleValue() < min.doubleValue()) {
                    throw new ConfigException("Invalid value " + parsed + " for configuration " + name
                            + ": must be at least " + min + ".");
                }
                if (max != null && n.doubleValue() > max.doubleValue()) {
                    throw new ConfigException("Invalid value " + parsed + " for configuration " + name
                            + ": must be at most " + max + ".");
                }
            }
            if (allowed != null
                    && parsed instanceof String s
                    && allowed.stream().noneMatch(a -> a.equalsIgnoreCase(s))) {
                throw new ConfigException(
                        "Invalid value '" + s + "' for configuration " + name + ": must be one of " + allowed + ".");
            }
        }

        private String typeName() {
            return type.name().toLowerCase(Locale.ROOT);
        }
    }

    private final Map<String, Key> keys = new LinkedHashMap<>();

    public ConfigDef define(String name, Type type, Object defaultValue) {
        return add(new Key(name, type, defaultValue, null, null, null, true));
    }

    public ConfigDef define(String name, Type type, Object defaultValue, Number min, Number max) {
        return add(new Key(name, type, defaultValue, min, max, null, true));
    }

    public ConfigDef defineChoice(String name, String defaultValue, String... allowed) {
        return add(new Key(name, Type.STRING, defaultValue, null, null, List.of(allowed), true));
    }

    /** A Kafka key that Varve accepts without acting on it yet. */
    public ConfigDef defineAccepted(String name, Type type) {
        return add(new Key(name, type, null, null, null, null, false));
    }

    private ConfigDef add(Key key) {
        if (keys.putIfAbsent(key.name(), key) != null) {
            throw new IllegalStateException("Config key defined twice: " + key.name());
        }
        return this;
    }

    public Key key(String name) {
        return keys.get(name);
    }

    public boolean contains(String name) {
        return keys.containsKey(name);
    }

    public Map<String, Key> keys() {
        return Collections.unmodifiableMap(keys);
    }

    /** Parses every known key present in {@code raw}; defaults fill the rest. Unknown keys are returned in {@code unknownOut}. */
    public Map<String, Object> parse(Map<String, String> raw, List<String> unknownOut) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (Key key : keys.values()) {
            values.put(key.name(), key.defaultValue());
        }
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, String> e : raw.entrySet()) {
            Key key = keys.get(e.getKey());
            if (key == null) {
                unknown.add(e.getKey());
                continue;
            }
            values.put(key.name(), key.parse(e.getValue()));
        }
        unknownOut.addAll(unknown);
        return values;
    }
}
