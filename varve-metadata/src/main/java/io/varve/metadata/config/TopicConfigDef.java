package io.varve.metadata.config;

import static io.varve.metadata.config.ConfigValidators.atLeast;
import static io.varve.metadata.config.ConfigValidators.between;
import static io.varve.metadata.config.ConfigValidators.betweenOr;
import static io.varve.metadata.config.ConfigValidators.in;
import static io.varve.metadata.config.ConfigValidators.listOf;
import static io.varve.metadata.config.ConfigValidators.throttledReplicas;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The topic-level configs we accept, with Kafka 4.x names, types, defaults and limits (including
 * KIP-1030's 4.0 changes: {@code segment.bytes} at least 1 MiB, {@code message.timestamp.after.max.ms}
 * defaulting to one hour). Defaults here are Kafka's broker defaults; a broker may override them
 * with its own {@code log.*} settings when it maps topic configs onto its storage config.
 *
 * <p>Deliberate difference from Kafka: remote storage is allowed on compacted topics.
 */
public final class TopicConfigDef {

    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String COMPRESSION_TYPE = "compression.type";
    public static final String COMPRESSION_GZIP_LEVEL = "compression.gzip.level";
    public static final String COMPRESSION_LZ4_LEVEL = "compression.lz4.level";
    public static final String COMPRESSION_ZSTD_LEVEL = "compression.zstd.level";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String FOLLOWER_REPLICATION_THROTTLED_REPLICAS = "follower.replication.throttled.replicas";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String LEADER_REPLICATION_THROTTLED_REPLICAS = "leader.replication.throttled.replicas";
    public static final String LOCAL_RETENTION_BYTES = "local.retention.bytes";
    public static final String LOCAL_RETENTION_MS = "local.retention.ms";
    public static final String MAX_COMPACTION_LAG_MS = "max.compaction.lag.ms";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String MESSAGE_DOWNCONVERSION_ENABLE = "message.downconversion.enable";
    public static final String MESSAGE_TIMESTAMP_AFTER_MAX_MS = "message.timestamp.after.max.ms";
    public static final String MESSAGE_TIMESTAMP_BEFORE_MAX_MS = "message.timestamp.before.max.ms";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    public static final String MIN_CLEANABLE_DIRTY_RATIO = "min.cleanable.dirty.ratio";
    public static final String MIN_COMPACTION_LAG_MS = "min.compaction.lag.ms";
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    public static final String PREALLOCATE = "preallocate";
    public static final String REMOTE_LOG_COPY_DISABLE = "remote.log.copy.disable";
    public static final String REMOTE_LOG_DELETE_ON_DISABLE = "remote.log.delete.on.disable";
    public static final String REMOTE_STORAGE_ENABLE = "remote.storage.enable";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String RETENTION_MS = "retention.ms";
    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_INDEX_BYTES = "segment.index.bytes";
    public static final String SEGMENT_JITTER_MS = "segment.jitter.ms";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String UNCLEAN_LEADER_ELECTION_ENABLE = "unclean.leader.election.enable";
    /** Broker-side schema validation, with the keys Confluent Server uses (the registry's subjects and ids). */
    public static final String KEY_SCHEMA_VALIDATION = "confluent.key.schema.validation";

    public static final String VALUE_SCHEMA_VALIDATION = "confluent.value.schema.validation";
    public static final String KEY_SUBJECT_NAME_STRATEGY = "confluent.key.subject.name.strategy";
    public static final String VALUE_SUBJECT_NAME_STRATEGY = "confluent.value.subject.name.strategy";
    /** Varve's own: validation also decodes each key or value against its schema, not only its header. */
    public static final String SCHEMA_VALIDATION_DEEP = "varve.schema.validation.deep";

    private static final String[] SUBJECT_NAME_STRATEGIES = {
        "TopicNameStrategy",
        "RecordNameStrategy",
        "TopicRecordNameStrategy",
        "io.confluent.kafka.serializers.subject.TopicNameStrategy",
        "io.confluent.kafka.serializers.subject.RecordNameStrategy",
        "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"
    };

    private static final String LONG_MAX = Long.toString(Long.MAX_VALUE);
    private static final Map<String, ConfigKey> KEYS = define();

    private TopicConfigDef() {}

    private static Map<String, ConfigKey> define() {
        Map<String, ConfigKey> keys = new TreeMap<>();
        Definer d = (name, type, defaultValue, validator, doc) ->
                keys.put(name, new ConfigKey(name, type, defaultValue, validator, doc, false));
        d.define(
                CLEANUP_POLICY,
                ConfigType.LIST,
                "delete",
                listOf("compact", "delete"),
                "Retention policy of old segments: delete, compact, or both; empty keeps everything.");
        d.define(
                COMPRESSION_TYPE,
                ConfigType.STRING,
                "producer",
                in("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
                "Final compression of the topic's batches; producer keeps the producer's codec.");
        d.define(
                COMPRESSION_GZIP_LEVEL,
                ConfigType.INT,
                "-1",
                betweenOr(1, 9, -1),
                "gzip level when compression.type=gzip.");
        d.define(COMPRESSION_LZ4_LEVEL, ConfigType.INT, "9", between(1, 17), "lz4 level when compression.type=lz4.");
        d.define(
                COMPRESSION_ZSTD_LEVEL,
                ConfigType.INT,
                "3",
                between(-131_072, 22),
                "zstd level when compression.type=zstd.");
        d.define(DELETE_RETENTION_MS, ConfigType.LONG, "86400000", atLeast(0), "How long tombstones are retained.");
        d.define(FILE_DELETE_DELAY_MS, ConfigType.LONG, "60000", atLeast(0), "Delay before deleting a file.");
        d.define(FLUSH_MESSAGES, ConfigType.LONG, LONG_MAX, atLeast(1), "Messages between forced fsyncs.");
        d.define(FLUSH_MS, ConfigType.LONG, LONG_MAX, atLeast(0), "Maximum time between forced fsyncs.");
        d.define(
                FOLLOWER_REPLICATION_THROTTLED_REPLICAS,
                ConfigType.LIST,
                "",
                throttledReplicas(),
                "Replicas throttled as followers: partitionId:brokerId pairs or *.");
        d.define(INDEX_INTERVAL_BYTES, ConfigType.INT, "4096", atLeast(0), "Bytes between offset index entries.");
        d.define(
                LEADER_REPLICATION_THROTTLED_REPLICAS,
                ConfigType.LIST,
                "",
                throttledReplicas(),
                "Replicas throttled as leaders: partitionId:brokerId pairs or *.");
        d.define(
                LOCAL_RETENTION_BYTES,
                ConfigType.LONG,
                "-2",
                atLeast(-2),
                "Local size limit with tiered storage; -2 means retention.bytes.");
        d.define(
                LOCAL_RETENTION_MS,
                ConfigType.LONG,
                "-2",
                atLeast(-2),
                "Local time limit with tiered storage; -2 means retention.ms.");
        d.define(
                MAX_COMPACTION_LAG_MS,
                ConfigType.LONG,
                LONG_MAX,
                atLeast(1),
                "Maximum time a record stays ineligible for compaction.");
        d.define(MAX_MESSAGE_BYTES, ConfigType.INT, "1048588", atLeast(0), "Largest accepted record batch.");
        d.define(
                MESSAGE_TIMESTAMP_AFTER_MAX_MS,
                ConfigType.LONG,
                "3600000",
                atLeast(0),
                "How far a CreateTime timestamp may be ahead of the broker's clock.");
        d.define(
                MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
                ConfigType.LONG,
                LONG_MAX,
                atLeast(0),
                "How far a CreateTime timestamp may be behind the broker's clock.");
        d.define(
                MESSAGE_TIMESTAMP_TYPE,
                ConfigType.STRING,
                "CreateTime",
                in("CreateTime", "LogAppendTime"),
                "Whether record timestamps are the producer's or the broker's.");
        d.define(
                MIN_CLEANABLE_DIRTY_RATIO,
                ConfigType.DOUBLE,
                "0.5",
                between(0, 1),
                "Dirty ratio above which the cleaner compacts the log.");
        d.define(MIN_COMPACTION_LAG_MS, ConfigType.LONG, "0", atLeast(0), "Minimum time a record stays uncompacted.");
        d.define(
                MIN_INSYNC_REPLICAS,
                ConfigType.INT,
                "1",
                atLeast(1),
                "In-sync replicas required to accept an acks=all write.");
        d.define(PREALLOCATE, ConfigType.BOOLEAN, "false", ConfigValidator.NONE, "Preallocate segment files.");
        d.define(
                REMOTE_LOG_COPY_DISABLE,
                ConfigType.BOOLEAN,
                "false",
                ConfigValidator.NONE,
                "Stop copying segments to remote storage, keep reading them.");
        d.define(
                REMOTE_LOG_DELETE_ON_DISABLE,
                ConfigType.BOOLEAN,
                "false",
                ConfigValidator.NONE,
                "Delete remote data when remote storage is disabled.");
        d.define(
                REMOTE_STORAGE_ENABLE,
                ConfigType.BOOLEAN,
                "false",
                ConfigValidator.NONE,
                "Offload closed segments to remote (tiered) storage.");
        d.define(
                RETENTION_BYTES,
                ConfigType.LONG,
                "-1",
                ConfigValidator.NONE,
                "Size limit per partition before old segments go; -1 means none.");
        d.define(RETENTION_MS, ConfigType.LONG, "604800000", atLeast(-1), "Age limit of segments; -1 means none.");
        d.define(SEGMENT_BYTES, ConfigType.INT, "1073741824", atLeast(1024 * 1024), "Segment file size.");
        d.define(SEGMENT_INDEX_BYTES, ConfigType.INT, "10485760", atLeast(4), "Offset index file size.");
        d.define(SEGMENT_JITTER_MS, ConfigType.LONG, "0", atLeast(0), "Random jitter subtracted from segment.ms.");
        d.define(SEGMENT_MS, ConfigType.LONG, "604800000", atLeast(1), "Time after which a segment is rolled.");
        d.define(
                UNCLEAN_LEADER_ELECTION_ENABLE,
                ConfigType.BOOLEAN,
                "false",
                ConfigValidator.NONE,
                "Allow out-of-sync replicas to become leader, at the risk of data loss.");
        for (String key : new String[] {KEY_SCHEMA_VALIDATION, VALUE_SCHEMA_VALIDATION}) {
            d.define(
                    key,
                    ConfigType.BOOLEAN,
                    "false",
                    ConfigValidator.NONE,
                    "Refuse records whose schema id is not registered under the subject (schema registry).");
        }
        for (String key : new String[] {KEY_SUBJECT_NAME_STRATEGY, VALUE_SUBJECT_NAME_STRATEGY}) {
            d.define(
                    key,
                    ConfigType.STRING,
                    "io.confluent.kafka.serializers.subject.TopicNameStrategy",
                    in(SUBJECT_NAME_STRATEGIES),
                    "How schema validation names the subject: by topic, record name or both.");
        }
        d.define(
                SCHEMA_VALIDATION_DEEP,
                ConfigType.BOOLEAN,
                "false",
                ConfigValidator.NONE,
                "Schema validation also decodes each record against its schema.");
        keys.put(
                MESSAGE_DOWNCONVERSION_ENABLE,
                new ConfigKey(
                        MESSAGE_DOWNCONVERSION_ENABLE,
                        ConfigType.BOOLEAN,
                        "true",
                        ConfigValidator.NONE,
                        "Deprecated, no effect: Kafka 4.x never down-converts.",
                        true));
        return Collections.unmodifiableMap(keys);
    }

    @FunctionalInterface
    private interface Definer {
        void define(String name, ConfigType type, String defaultValue, ConfigValidator validator, String doc);
    }

    /** Every accepted key, by name. */
    public static Map<String, ConfigKey> keys() {
        return KEYS;
    }

    public static boolean isKnown(String name) {
        return KEYS.containsKey(name);
    }

    /** Default value of every key, as strings. */
    public static Map<String, String> defaults() {
        Map<String, String> defaults = new TreeMap<>();
        KEYS.values().forEach(key -> defaults.put(key.name(), key.defaultValue()));
        return Collections.unmodifiableMap(defaults);
    }

    /**
     * Checks topic-level overrides: every name known, every value parsable and within limits, and
     * the combined settings consistent.
     *
     * @throws InvalidConfigurationException with a message naming the first problem
     */
    public static void validate(Map<String, String> overrides) {
        resolve(overrides);
    }

    /**
     * Validates the overrides and returns the typed value of every key (override or default):
     * Boolean, Integer, Long, Double, String or {@code List<String>}.
     *
     * @throws InvalidConfigurationException with a message naming the first problem
     */
    public static Map<String, Object> resolve(Map<String, String> overrides) {
        for (String name : overrides.keySet()) {
            if (name == null) {
                throw new InvalidConfigurationException("Null topic config name");
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        KEYS.values().forEach(key -> values.put(key.name(), key.parsedDefault()));
        for (Map.Entry<String, String> entry : new TreeMap<>(overrides).entrySet()) {
            String name = entry.getKey();
            ConfigKey key = KEYS.get(name);
            if (key == null) {
                throw new InvalidConfigurationException("Unknown topic config name: " + name);
            }
            if (entry.getValue() == null) {
                throw new InvalidConfigurationException("Null value not supported for topic config: " + name);
            }
            try {
                values.put(name, key.parse(entry.getValue()));
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationException(
                        "Invalid value " + entry.getValue() + " for configuration " + name + ": " + e.getMessage());
            }
        }
        validateCombination(values);
        return Collections.unmodifiableMap(values);
    }

    private static void validateCombination(Map<String, Object> values) {
        long minCompactionLagMs = (Long) values.get(MIN_COMPACTION_LAG_MS);
        long maxCompactionLagMs = (Long) values.get(MAX_COMPACTION_LAG_MS);
        if (minCompactionLagMs > maxCompactionLagMs) {
            throw new InvalidConfigurationException("conflict topic config setting " + MIN_COMPACTION_LAG_MS + " ("
                    + minCompactionLagMs + ") > " + MAX_COMPACTION_LAG_MS + " (" + maxCompactionLagMs + ")");
        }
        if ((Boolean) values.get(REMOTE_STORAGE_ENABLE)) {
            checkLocalWithinTotal(values, LOCAL_RETENTION_MS, RETENTION_MS);
            checkLocalWithinTotal(values, LOCAL_RETENTION_BYTES, RETENTION_BYTES);
        }
    }

    /** With tiered storage, the local limit (-2 = same as total) may not exceed the total limit (-1 = none). */
    private static void checkLocalWithinTotal(Map<String, Object> values, String localName, String totalName) {
        long local = (Long) values.get(localName);
        long total = (Long) values.get(totalName);
        if (total == -1 || local == -2) {
            return;
        }
        if (local == -1) {
            throw new InvalidConfigurationException("Invalid value -1 for configuration " + localName
                    + ": Value must not be -1 as " + totalName + " value is set as " + total);
        }
        if (local > total) {
            throw new InvalidConfigurationException("Invalid value " + local + " for configuration " + localName
                    + ": Value must not be more than " + totalName + " property value: " + total);
        }
    }

    /** Keys accepted for compatibility that have no effect. */
    public static List<String> deprecatedNoOpKeys() {
        return KEYS.values().stream()
                .filter(ConfigKey::deprecatedNoOp)
                .map(ConfigKey::name)
                .toList();
    }
}
