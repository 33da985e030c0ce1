package io.varve.metadata.config;

import static io.varve.metadata.config.ConfigValidators.atLeast;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.kafka.common.errors.InvalidRequestException;

/**
 * The broker-level configs behind topic configs, with Kafka 4.x names, types and broker defaults:
 * each topic key's broker synonyms in precedence order ({@code retention.ms} ← {@code log.retention.ms},
 * {@code log.retention.minutes}, {@code log.retention.hours}), which of them may change at runtime
 * (only the first synonym of each topic key, as in Kafka), plus the log cleaner's runtime settings.
 *
 * <p>A dynamic value set for the cluster (broker resource "") or for one broker overrides the
 * static {@code server.properties} value and is the default of every topic that does not override it.
 */
public final class DynamicBrokerConfigDef {

    private static final long MINUTE_MS = 60_000L;
    private static final long HOUR_MS = 60 * MINUTE_MS;
    private static final String LONG_MAX = Long.toString(Long.MAX_VALUE);

    /**
     * One broker key.
     *
     * @param defaultValue Kafka's broker default, or null when it has none (a lower synonym decides)
     * @param dynamic      whether IncrementalAlterConfigs/AlterConfigs may set it
     * @param topicKey     the topic config it is the broker default of, or null
     * @param unitMs       factor from this key's unit to the topic key's (hours → ms); 1 otherwise
     */
    public record Key(
            String name,
            ConfigType type,
            String defaultValue,
            ConfigValidator validator,
            String documentation,
            boolean dynamic,
            String topicKey,
            long unitMs) {

        public Key {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(validator, "validator");
            Objects.requireNonNull(documentation, "documentation");
            if (unitMs <= 0) {
                throw new IllegalArgumentException("unitMs must be > 0: " + unitMs);
            }
        }

        /** @throws IllegalArgumentException with the reason if the value is invalid */
        public Object parse(String value) {
            Object parsed = type.parse(value);
            validator.ensureValid(parsed);
            return parsed;
        }
    }

    private static final Map<String, Key> KEYS = define();
    private static final Map<String, List<String>> SYNONYMS_BY_TOPIC_KEY = synonymsByTopicKey();

    private DynamicBrokerConfigDef() {}

    private static Map<String, Key> define() {
        Map<String, Key> keys = new LinkedHashMap<>();
        // Order matters within a topic key: it is the synonyms' precedence.
        synonym(keys, "log.segment.bytes", TopicConfigDef.SEGMENT_BYTES, "1073741824");
        synonym(keys, "log.roll.ms", TopicConfigDef.SEGMENT_MS, null);
        readOnlySynonym(keys, "log.roll.hours", TopicConfigDef.SEGMENT_MS, "168", HOUR_MS);
        synonym(keys, "log.roll.jitter.ms", TopicConfigDef.SEGMENT_JITTER_MS, null);
        readOnlySynonym(keys, "log.roll.jitter.hours", TopicConfigDef.SEGMENT_JITTER_MS, "0", HOUR_MS);
        synonym(keys, "log.index.size.max.bytes", TopicConfigDef.SEGMENT_INDEX_BYTES, "10485760");
        synonym(keys, "log.flush.interval.messages", TopicConfigDef.FLUSH_MESSAGES, LONG_MAX);
        synonym(keys, "log.flush.interval.ms", TopicConfigDef.FLUSH_MS, null);
        readOnlySynonym(keys, "log.flush.scheduler.interval.ms", TopicConfigDef.FLUSH_MS, LONG_MAX, 1);
        synonym(keys, "log.retention.bytes", TopicConfigDef.RETENTION_BYTES, "-1");
        synonym(keys, "log.retention.ms", TopicConfigDef.RETENTION_MS, null);
        readOnlySynonym(keys, "log.retention.minutes", TopicConfigDef.RETENTION_MS, null, MINUTE_MS);
        readOnlySynonym(keys, "log.retention.hours", TopicConfigDef.RETENTION_MS, "168", HOUR_MS);
        synonym(keys, "message.max.bytes", TopicConfigDef.MAX_MESSAGE_BYTES, "1048588");
        synonym(keys, "log.index.interval.bytes", TopicConfigDef.INDEX_INTERVAL_BYTES, "4096");
        synonym(keys, "log.cleaner.delete.retention.ms", TopicConfigDef.DELETE_RETENTION_MS, "86400000");
        synonym(keys, "log.cleaner.min.compaction.lag.ms", TopicConfigDef.MIN_COMPACTION_LAG_MS, "0");
        synonym(keys, "log.cleaner.max.compaction.lag.ms", TopicConfigDef.MAX_COMPACTION_LAG_MS, LONG_MAX);
        synonym(keys, "log.segment.delete.delay.ms", TopicConfigDef.FILE_DELETE_DELAY_MS, "60000");
        synonym(keys, "log.cleaner.min.cleanable.ratio", TopicConfigDef.MIN_CLEANABLE_DIRTY_RATIO, "0.5");
        synonym(keys, "log.cleanup.policy", TopicConfigDef.CLEANUP_POLICY, "delete");
        synonym(keys, "unclean.leader.election.enable", TopicConfigDef.UNCLEAN_LEADER_ELECTION_ENABLE, "false");
        synonym(keys, "min.insync.replicas", TopicConfigDef.MIN_INSYNC_REPLICAS, "1");
        synonym(keys, "compression.type", TopicConfigDef.COMPRESSION_TYPE, "producer");
        synonym(keys, "compression.gzip.level", TopicConfigDef.COMPRESSION_GZIP_LEVEL, "-1");
        synonym(keys, "compression.lz4.level", TopicConfigDef.COMPRESSION_LZ4_LEVEL, "9");
        synonym(keys, "compression.zstd.level", TopicConfigDef.COMPRESSION_ZSTD_LEVEL, "3");
        synonym(keys, "log.preallocate", TopicConfigDef.PREALLOCATE, "false");
        synonym(keys, "log.message.timestamp.type", TopicConfigDef.MESSAGE_TIMESTAMP_TYPE, "CreateTime");
        synonym(keys, "log.message.timestamp.before.max.ms", TopicConfigDef.MESSAGE_TIMESTAMP_BEFORE_MAX_MS, LONG_MAX);
        synonym(keys, "log.message.timestamp.after.max.ms", TopicConfigDef.MESSAGE_TIMESTAMP_AFTER_MAX_MS, "3600000");
        synonym(keys, "log.local.retention.ms", TopicConfigDef.LOCAL_RETENTION_MS, "-2");
        synonym(keys, "log.local.retention.bytes", TopicConfigDef.LOCAL_RETENTION_BYTES, "-2");

        cleaner(keys, "log.cleaner.threads", ConfigType.INT, "1", atLeast(0), "Background threads that compact logs.");
        cleaner(
                keys,
                "log.cleaner.io.max.bytes.per.second",
                ConfigType.DOUBLE,
                Double.toString(Double.MAX_VALUE),
                ConfigValidator.NONE,
                "Read plus write rate limit of the log cleaner.");
        cleaner(
                keys,
                "log.cleaner.dedupe.buffer.size",
                ConfigType.LONG,
                "134217728",
                ConfigValidator.NONE,
                "Memory for key deduplication across all cleaner threads.");
        cleaner(
                keys,
                "log.cleaner.io.buffer.size",
                ConfigType.INT,
                "524288",
                atLeast(0),
                "I/O buffer memory across all cleaner threads.");
        cleaner(
                keys,
                "log.cleaner.io.buffer.load.factor",
                ConfigType.DOUBLE,
                "0.9",
                ConfigValidator.NONE,
                "Load factor of the cleaner's deduplication buffer.");
        cleaner(
                keys,
                "log.cleaner.backoff.ms",
                ConfigType.LONG,
                "15000",
                atLeast(0),
                "Sleep of a cleaner thread when there is nothing to clean.");
        // Replication throttles (kafka-reassign-partitions --throttle sets them per broker): stored and described;
        // the replica fetchers are what honour them.
        for (String throttle : List.of(
                "leader.replication.throttled.rate",
                "follower.replication.throttled.rate",
                "replica.alter.log.dirs.io.max.bytes.per.second")) {
            put(
                    keys,
                    new Key(
                            throttle,
                            ConfigType.LONG,
                            LONG_MAX,
                            atLeast(0),
                            "Replication throttle in bytes per second (" + throttle + ").",
                            true,
                            null,
                            1));
        }
        return Collections.unmodifiableMap(keys);
    }

    private static void synonym(Map<String, Key> keys, String name, String topicKey, String defaultValue) {
        ConfigKey topic = TopicConfigDef.keys().get(topicKey);
        put(
                keys,
                new Key(
                        name,
                        topic.type(),
                        defaultValue,
                        topic.validator(),
                        "Broker default of " + topicKey + ": " + topic.documentation(),
                        true,
                        topicKey,
                        1));
    }

    private static void readOnlySynonym(
            Map<String, Key> keys, String name, String topicKey, String defaultValue, long unitMs) {
        ConfigKey topic = TopicConfigDef.keys().get(topicKey);
        String unit = unitMs == HOUR_MS ? " in hours" : unitMs == MINUTE_MS ? " in minutes" : "";
        put(
                keys,
                new Key(
                        name,
                        unitMs == 1 ? topic.type() : ConfigType.INT,
                        defaultValue,
                        unitMs == 1 ? topic.validator() : ConfigValidator.NONE,
                        "Broker default of " + topicKey + unit + ", below the dynamic synonym; read-only.",
                        false,
                        topicKey,
                        unitMs));
    }

    private static void cleaner(
            Map<String, Key> keys,
            String name,
            ConfigType type,
            String defaultValue,
            ConfigValidator validator,
            String doc) {
        put(keys, new Key(name, type, defaultValue, validator, doc, true, null, 1));
    }

    private static void put(Map<String, Key> keys, Key key) {
        if (keys.putIfAbsent(key.name(), key) != null) {
            throw new IllegalStateException("broker config defined twice: " + key.name());
        }
    }

    private static Map<String, List<String>> synonymsByTopicKey() {
        Map<String, List<String>> byTopicKey = new LinkedHashMap<>();
        for (Key key : KEYS.values()) {
            if (key.topicKey() != null) {
                byTopicKey
                        .computeIfAbsent(key.topicKey(), k -> new ArrayList<>())
                        .add(key.name());
            }
        }
        byTopicKey.replaceAll((topicKey, names) -> List.copyOf(names));
        return Collections.unmodifiableMap(byTopicKey);
    }

    /** Every broker key defined here, by name, in definition order. */
    public static Map<String, Key> keys() {
        return KEYS;
    }

    public static Optional<Key> key(String name) {
        return Optional.ofNullable(KEYS.get(name));
    }

    public static boolean isDynamic(String name) {
        Key key = KEYS.get(name);
        return key != null && key.dynamic();
    }

    /** Kafka's broker default of every key that has one, as strings. */
    public static Map<String, String> defaults() {
        Map<String, String> defaults = new TreeMap<>();
        KEYS.values().stream()
                .filter(k -> k.defaultValue() != null)
                .forEach(k -> defaults.put(k.name(), k.defaultValue()));
        return Collections.unmodifiableMap(defaults);
    }

    /** The broker keys that default a topic key, highest precedence first; empty if none. */
    public static List<String> brokerSynonymsOf(String topicKey) {
        return SYNONYMS_BY_TOPIC_KEY.getOrDefault(topicKey, List.of());
    }

    /**
     * A broker key and its lower-precedence synonyms ({@code log.retention.minutes} →
     * [log.retention.minutes, log.retention.hours]); just the key itself if it has none.
     */
    public static List<String> synonymsOfBrokerKey(String brokerKey) {
        Key key = KEYS.get(brokerKey);
        if (key == null || key.topicKey() == null) {
            return List.of(brokerKey);
        }
        List<String> family = SYNONYMS_BY_TOPIC_KEY.get(key.topicKey());
        return family.subList(family.indexOf(brokerKey), family.size());
    }

    /** A broker synonym's value in its topic key's unit (hours and minutes become milliseconds). */
    public static String toTopicUnit(String brokerKey, String value) {
        Key key = KEYS.get(brokerKey);
        if (key == null || key.unitMs() == 1 || value == null) {
            return value;
        }
        try {
            return Long.toString(Math.multiplyExact(Long.parseLong(value.trim()), key.unitMs()));
        } catch (NumberFormatException | ArithmeticException e) {
            return value; // the broker refuses such a value at start-up; nothing better to show
        }
    }

    /**
     * Checks dynamic broker-level settings as Kafka does: no key that can only be set in
     * {@code server.properties}, and every value of a key defined here valid. Keys Varve does not
     * know are accepted, as Kafka accepts custom configs.
     *
     * @param configs       the keys being set (values non-null)
     * @param staticOnlyKey true for broker keys (beyond the ones defined here) that cannot change at runtime
     * @throws InvalidRequestException naming the problem, as Kafka's broker does
     */
    public static void validate(Map<String, String> configs, Predicate<String> staticOnlyKey) {
        TreeSet<String> readOnly = new TreeSet<>();
        for (String name : configs.keySet()) {
            Key key = KEYS.get(name);
            if (key != null ? !key.dynamic() : staticOnlyKey.test(name)) {
                readOnly.add(name);
            }
        }
        if (!readOnly.isEmpty()) {
            throw new InvalidRequestException(
                    "Cannot update these configs dynamically: Set(" + String.join(", ", readOnly) + ")");
        }
        for (Map.Entry<String, String> entry : new TreeMap<>(configs).entrySet()) {
            Key key = KEYS.get(entry.getKey());
            if (key == null) {
                continue;
            }
            try {
                key.parse(entry.getValue());
            } catch (IllegalArgumentException e) {
                throw new InvalidRequestException("Invalid value " + entry.getValue() + " for configuration "
                        + entry.getKey() + ": " + e.getMessage());
            }
        }
    }
}
