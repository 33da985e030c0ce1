package io.varve.metadata.config;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidRequestException;

/**
 * The keys of a client-metrics resource (KIP-714, {@code kafka-client-metrics}): {@code metrics}, the metric name
 * prefixes to push (empty: none, {@code *}: all); {@code interval.ms}, the push interval; {@code match}, {@code
 * selector=regex} pairs naming the clients it applies to (none: every client). Kafka's keys, bounds and defaults.
 */
public final class ClientMetricsConfigDef {
    public static final String METRICS = "metrics";
    public static final String INTERVAL_MS = "interval.ms";
    public static final String MATCH = "match";

    public static final int DEFAULT_INTERVAL_MS = 300_000;
    public static final int MIN_INTERVAL_MS = 100;
    public static final int MAX_INTERVAL_MS = 3_600_000;

    /** What a {@code match} entry may select on: the client's identity as its requests tell it. */
    public static final Set<String> MATCH_SELECTORS = Set.of(
            "client_instance_id",
            "client_id",
            "client_software_name",
            "client_software_version",
            "client_source_address",
            "client_source_port");

    private static final Set<String> KEYS = Set.of(METRICS, INTERVAL_MS, MATCH);

    private ClientMetricsConfigDef() {}

    public static boolean isList(String key) {
        return key.equals(METRICS) || key.equals(MATCH);
    }

    /** Validates a resource's complete configs; Kafka's errors. */
    public static void validate(Map<String, String> all) {
        for (String key : all.keySet()) {
            if (!KEYS.contains(key)) {
                throw new InvalidRequestException("Unknown client metrics configuration: " + key);
            }
        }
        String interval = all.get(INTERVAL_MS);
        if (interval != null) {
            int ms;
            try {
                ms = Integer.parseInt(interval.trim());
            } catch (NumberFormatException e) {
                throw new InvalidConfigurationException("Invalid value " + interval + " for configuration "
                        + INTERVAL_MS + ": Not a number of type INT");
            }
            if (ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS) {
                throw new InvalidConfigurationException("Invalid value " + ms + " for configuration " + INTERVAL_MS
                        + ": Value must be between " + MIN_INTERVAL_MS + " and " + MAX_INTERVAL_MS);
            }
        }
        String match = all.get(MATCH);
        if (match != null) {
            for (String entry : list(match)) {
                int eq = entry.indexOf('=');
                if (eq <= 0) {
                    throw new InvalidConfigurationException("Illegal client matching pattern: " + entry);
                }
                String selector = entry.substring(0, eq).trim();
                if (!MATCH_SELECTORS.contains(selector)) {
                    throw new InvalidConfigurationException("Unknown client matching pattern: " + selector);
                }
                try {
                    Pattern.compile(entry.substring(eq + 1).trim());
                } catch (PatternSyntaxException e) {
                    throw new InvalidConfigurationException("Illegal regex pattern in client matching: " + entry);
                }
            }
        }
    }

    /** A list value's elements, trimmed, empty ones dropped. */
    public static List<String> list(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return java.util.Arrays.stream(value.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }
}
