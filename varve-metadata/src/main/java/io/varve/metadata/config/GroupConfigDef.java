package io.varve.metadata.config;

import static io.varve.metadata.config.ConfigValidators.atLeast;
import static io.varve.metadata.config.ConfigValidators.in;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.errors.InvalidConfigurationException;

/**
 * The keys of a GROUP config resource ({@code kafka-configs --entity-type groups --entity-name g}): the settings a
 * consumer, share or streams group may override of the broker-wide {@code group.*} ones, with Kafka 4.4's names,
 * types, defaults and lower bounds. Values are checked as Kafka's controller checks them: each key set must parse and
 * lie within the node's broker-wide bounds ({@link GroupConfigBounds}), and a session timeout must exceed its heartbeat
 * interval, taking the broker-wide value for the one of the pair the group does not set.
 */
public final class GroupConfigDef {
    public static final String CONSUMER_SESSION_TIMEOUT_MS = "consumer.session.timeout.ms";
    public static final String CONSUMER_HEARTBEAT_INTERVAL_MS = "consumer.heartbeat.interval.ms";
    public static final String CONSUMER_ASSIGNMENT_INTERVAL_MS = "consumer.assignment.interval.ms";
    public static final String SHARE_SESSION_TIMEOUT_MS = "share.session.timeout.ms";
    public static final String SHARE_HEARTBEAT_INTERVAL_MS = "share.heartbeat.interval.ms";
    public static final String SHARE_RECORD_LOCK_DURATION_MS = "share.record.lock.duration.ms";
    public static final String SHARE_DELIVERY_COUNT_LIMIT = "share.delivery.count.limit";
    public static final String SHARE_PARTITION_MAX_RECORD_LOCKS = "share.partition.max.record.locks";
    public static final String SHARE_AUTO_OFFSET_RESET = "share.auto.offset.reset";
    public static final String SHARE_ISOLATION_LEVEL = "share.isolation.level";
    public static final String SHARE_RENEW_ACKNOWLEDGE_ENABLE = "share.renew.acknowledge.enable";
    public static final String SHARE_ASSIGNMENT_INTERVAL_MS = "share.assignment.interval.ms";
    public static final String STREAMS_SESSION_TIMEOUT_MS = "streams.session.timeout.ms";
    public static final String STREAMS_HEARTBEAT_INTERVAL_MS = "streams.heartbeat.interval.ms";
    public static final String STREAMS_NUM_STANDBY_REPLICAS = "streams.num.standby.replicas";
    public static final String STREAMS_INITIAL_REBALANCE_DELAY_MS = "streams.initial.rebalance.delay.ms";
    public static final String STREAMS_ASSIGNMENT_INTERVAL_MS = "streams.assignment.interval.ms";
    public static final String STREAMS_RACK_AWARE_ASSIGNMENT_TAGS = "streams.rack.aware.assignment.tags";
    public static final String STREAMS_TASK_OFFSET_INTERVAL_MS = "streams.task.offset.interval.ms";
    public static final String STREAMS_NUM_WARMUP_REPLICAS = "streams.num.warmup.replicas";
    public static final String STREAMS_ACCEPTABLE_RECOVERY_LAG = "streams.acceptable.recovery.lag";
    public static final String STREAMS_ASSIGNOR_NAME = "streams.assignor.name";
    public static final String ERRORS_DLQ_TOPIC_NAME = "errors.deadletterqueue.topic.name";
    public static final String ERRORS_DLQ_COPY_RECORD_ENABLE = "errors.deadletterqueue.copy.record.enable";

    /** The task assignors a streams group may name: Varve's one (Kafka registers its assignors by short name). */
    public static final List<String> STREAMS_ASSIGNORS = List.of("sticky");

    /**
     * One group key.
     *
     * @param brokerSynonym the broker-wide key whose value a group without an override uses (null: the key's default)
     * @param internal      accepted but not described, as Kafka's internal keys
     */
    public record GroupKey(ConfigKey key, String brokerSynonym, boolean internal) {
        public String name() {
            return key.name();
        }
    }

    private static final Map<String, GroupKey> KEYS;

    static {
        Map<String, GroupKey> keys = new TreeMap<>();
        intKey(
                keys,
                CONSUMER_SESSION_TIMEOUT_MS,
                45_000,
                1,
                "group.consumer.session.timeout.ms",
                doc("the timeout to" + " detect client failures when using the consumer group protocol"));
        intKey(
                keys,
                CONSUMER_HEARTBEAT_INTERVAL_MS,
                5_000,
                1,
                "group.consumer.heartbeat.interval.ms",
                doc("the heartbeat interval given to the members of a consumer group"));
        intKey(
                keys,
                CONSUMER_ASSIGNMENT_INTERVAL_MS,
                1_000,
                0,
                null,
                doc("the interval between assignment updates for a consumer group"));
        intKey(
                keys,
                SHARE_SESSION_TIMEOUT_MS,
                45_000,
                1,
                "group.share.session.timeout.ms",
                doc("the timeout to detect client failures when using the share group protocol"));
        intKey(
                keys,
                SHARE_HEARTBEAT_INTERVAL_MS,
                5_000,
                1,
                "group.share.heartbeat.interval.ms",
                doc("the heartbeat interval given to the members of a share group"));
        intKey(
                keys,
                SHARE_RECORD_LOCK_DURATION_MS,
                30_000,
                1_000,
                "group.share.record.lock.duration.ms",
                doc("the record acquisition lock duration in milliseconds for share groups"));
        intKey(
                keys,
                SHARE_DELIVERY_COUNT_LIMIT,
                5,
                2,
                "group.share.delivery.count.limit",
                doc("the maximum number of delivery attempts for a record delivered to a share group"));
        intKey(
                keys,
                SHARE_PARTITION_MAX_RECORD_LOCKS,
                2_000,
                100,
                "group.share.partition.max.record.locks",
                doc("the share-group record lock limit per share-partition"));
        put(
                keys,
                new ConfigKey(
                        SHARE_AUTO_OFFSET_RESET,
                        ConfigType.STRING,
                        "latest",
                        GroupConfigDef::checkAutoOffsetReset,
                        doc("where a share-partition starts: latest, earliest or by_duration:<ISO-8601 duration>"),
                        false),
                null);
        put(
                keys,
                new ConfigKey(
                        SHARE_ISOLATION_LEVEL,
                        ConfigType.STRING,
                        "read_uncommitted",
                        in("read_committed", "read_uncommitted"),
                        doc("whether a share group delivers only committed transactional records"),
                        false),
                null);
        put(
                keys,
                new ConfigKey(
                        SHARE_RENEW_ACKNOWLEDGE_ENABLE,
                        ConfigType.BOOLEAN,
                        "true",
                        ConfigValidator.NONE,
                        doc("whether the renew acknowledgement type is enabled for the share group"),
                        false),
                null);
        intKey(
                keys,
                SHARE_ASSIGNMENT_INTERVAL_MS,
                1_000,
                0,
                null,
                doc("the interval between assignment updates for a share group"));
        intKey(
                keys,
                STREAMS_SESSION_TIMEOUT_MS,
                45_000,
                1,
                "group.streams.session.timeout.ms",
                doc("the timeout to detect client failures when using the streams group protocol"));
        intKey(
                keys,
                STREAMS_HEARTBEAT_INTERVAL_MS,
                5_000,
                1,
                "group.streams.heartbeat.interval.ms",
                doc("the heartbeat interval given to the members of a streams group"));
        intKey(
                keys,
                STREAMS_NUM_STANDBY_REPLICAS,
                0,
                0,
                "group.streams.num.standby.replicas",
                doc("the number of standby replicas for each task"));
        intKey(
                keys,
                STREAMS_INITIAL_REBALANCE_DELAY_MS,
                3_000,
                0,
                "group.streams.initial.rebalance.delay.ms",
                doc("how long a new streams group waits for more members before its first assignment"));
        intKey(
                keys,
                STREAMS_ASSIGNMENT_INTERVAL_MS,
                1_000,
                0,
                null,
                doc("the interval between assignment updates for a streams group"));
        put(
                keys,
                new ConfigKey(
                        STREAMS_RACK_AWARE_ASSIGNMENT_TAGS,
                        ConfigType.LIST,
                        "",
                        GroupConfigDef::checkNoDuplicateTags,
                        doc("the client tags rack-aware assignment spreads standbys by"),
                        false),
                null);
        intKey(
                keys,
                STREAMS_TASK_OFFSET_INTERVAL_MS,
                60_000,
                1,
                null,
                doc("how often members report their task changelog offsets"));
        intKey(keys, STREAMS_NUM_WARMUP_REPLICAS, 2, 0, null, doc("the maximum number of warm-up task replicas"));
        put(
                keys,
                new ConfigKey(
                        STREAMS_ACCEPTABLE_RECOVERY_LAG,
                        ConfigType.LONG,
                        "10000",
                        atLeast(0),
                        doc("the lag (offsets to catch up) below which a client may receive an active task"),
                        false),
                null);
        put(
                keys,
                new ConfigKey(
                        STREAMS_ASSIGNOR_NAME,
                        ConfigType.STRING,
                        "",
                        ConfigValidator.NONE,
                        doc("the task assignor of this streams group, by short name (unset: the broker's first)"),
                        false),
                null);
        put(
                keys,
                new ConfigKey(
                        ERRORS_DLQ_TOPIC_NAME,
                        ConfigType.STRING,
                        "",
                        ConfigValidator.NONE,
                        doc("the dead-letter queue topic of this share group (blank: none)"),
                        false),
                null);
        put(
                keys,
                new ConfigKey(
                        ERRORS_DLQ_COPY_RECORD_ENABLE,
                        ConfigType.BOOLEAN,
                        "false",
                        ConfigValidator.NONE,
                        doc("whether the dead-letter queue gets a copy of the record or only its context headers"),
                        false),
                null);
        for (String kind : List.of("consumer", "share", "streams")) {
            String name = kind + ".assignor.offload.enable";
            keys.put(
                    name,
                    new GroupKey(
                            new ConfigKey(
                                    name,
                                    ConfigType.BOOLEAN,
                                    "false",
                                    ConfigValidator.NONE,
                                    "Whether to offload the assignment to a background thread (no effect in Varve).",
                                    false),
                            "group." + name,
                            true));
        }
        KEYS = Collections.unmodifiableMap(keys);
    }

    private GroupConfigDef() {}

    private static String doc(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1) + ".";
    }

    private static void intKey(
            Map<String, GroupKey> keys, String name, int defaultValue, int min, String synonym, String documentation) {
        put(
                keys,
                new ConfigKey(name, ConfigType.INT, Integer.toString(defaultValue), atLeast(min), documentation, false),
                synonym);
    }

    private static void put(Map<String, GroupKey> keys, ConfigKey key, String synonym) {
        keys.put(key.name(), new GroupKey(key, synonym, false));
    }

    /** Every key, by name, internal ones included. */
    public static Map<String, GroupKey> keys() {
        return KEYS;
    }

    public static boolean isList(String name) {
        GroupKey key = KEYS.get(name);
        return key != null && key.key().type() == ConfigType.LIST;
    }

    /**
     * Checks a group's complete configs after a change; Kafka's errors (INVALID_CONFIG with a message).
     *
     * @throws InvalidConfigurationException naming the first problem
     */
    public static void validate(Map<String, String> all, GroupConfigBounds bounds) {
        Map<String, Object> parsed = new TreeMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(all).entrySet()) {
            GroupKey key = KEYS.get(e.getKey());
            if (key == null) {
                throw new InvalidConfigurationException("Unknown group config name: " + e.getKey());
            }
            try {
                parsed.put(e.getKey(), key.key().parse(e.getValue()));
            } catch (IllegalArgumentException ex) {
                throw new InvalidConfigurationException(
                        "Invalid value " + e.getValue() + " for configuration " + e.getKey() + ": " + ex.getMessage());
            }
        }
        for (Map.Entry<String, Object> e : parsed.entrySet()) {
            GroupConfigBounds.Bound bound = bounds.bound(e.getKey());
            if (bound != null && !bound.contains((Integer) e.getValue())) {
                throw new InvalidConfigurationException(bound.refusal(e.getKey()));
            }
        }
        sessionExceedsHeartbeat(parsed, bounds, CONSUMER_SESSION_TIMEOUT_MS, CONSUMER_HEARTBEAT_INTERVAL_MS);
        sessionExceedsHeartbeat(parsed, bounds, SHARE_SESSION_TIMEOUT_MS, SHARE_HEARTBEAT_INTERVAL_MS);
        sessionExceedsHeartbeat(parsed, bounds, STREAMS_SESSION_TIMEOUT_MS, STREAMS_HEARTBEAT_INTERVAL_MS);
        Object assignor = parsed.get(STREAMS_ASSIGNOR_NAME);
        if (assignor != null && !((String) assignor).isEmpty() && !STREAMS_ASSIGNORS.contains(assignor)) {
            throw new InvalidConfigurationException(STREAMS_ASSIGNOR_NAME + " '" + assignor
                    + "' is not a registered task assignor. Registered assignors are: "
                    + String.join(", ", STREAMS_ASSIGNORS) + ".");
        }
        Object dlq = parsed.get(ERRORS_DLQ_TOPIC_NAME);
        if (dlq != null && ((String) dlq).startsWith("__")) {
            throw new InvalidConfigurationException(
                    ERRORS_DLQ_TOPIC_NAME + ": DLQ topic name must not start with '__'");
        }
        notAppliedUnlessDefault(parsed);
    }

    /**
     * The group keys Varve's coordinators apply: session timeouts and heartbeat intervals of the three group types,
     * the share groups' offset reset and record lock duration, the streams groups' standby replicas, and the streams
     * assignor (Varve has one, which the validation above insists on). Any other key is taken at its default only:
     * a value Varve would store but not act on is refused rather than silently ignored.
     */
    static final Set<String> APPLIED = Set.of(
            CONSUMER_SESSION_TIMEOUT_MS,
            CONSUMER_HEARTBEAT_INTERVAL_MS,
            SHARE_SESSION_TIMEOUT_MS,
            SHARE_HEARTBEAT_INTERVAL_MS,
            SHARE_AUTO_OFFSET_RESET,
            SHARE_RECORD_LOCK_DURATION_MS,
            STREAMS_SESSION_TIMEOUT_MS,
            STREAMS_HEARTBEAT_INTERVAL_MS,
            STREAMS_NUM_STANDBY_REPLICAS,
            STREAMS_ASSIGNOR_NAME);

    private static void notAppliedUnlessDefault(Map<String, Object> parsed) {
        for (Map.Entry<String, Object> e : parsed.entrySet()) {
            if (APPLIED.contains(e.getKey())) {
                continue;
            }
            ConfigKey key = KEYS.get(e.getKey()).key();
            Object defaultValue = key.defaultValue() == null ? null : key.parse(key.defaultValue());
            if (!java.util.Objects.equals(e.getValue(), defaultValue)) {
                throw new InvalidConfigurationException("Varve does not apply " + e.getKey()
                        + " to groups yet, so it takes only its default (" + key.defaultValue() + ").");
            }
        }
    }

    /** Only checked when the group sets one of the pair: the other is the broker-wide value. */
    private static void sessionExceedsHeartbeat(
            Map<String, Object> parsed, GroupConfigBounds bounds, String sessionKey, String heartbeatKey) {
        if (!parsed.containsKey(sessionKey) && !parsed.containsKey(heartbeatKey)) {
            return;
        }
        int session = parsed.containsKey(sessionKey)
                ? (Integer) parsed.get(sessionKey)
                : bounds.brokerDefault(sessionKey, defaultInt(sessionKey));
        int heartbeat = parsed.containsKey(heartbeatKey)
                ? (Integer) parsed.get(heartbeatKey)
                : bounds.brokerDefault(heartbeatKey, defaultInt(heartbeatKey));
        if (session <= heartbeat) {
            throw new InvalidConfigurationException(sessionKey + " must be greater than " + heartbeatKey);
        }
    }

    private static int defaultInt(String key) {
        return Integer.parseInt(KEYS.get(key).key().defaultValue());
    }

    /** {@code latest}, {@code earliest} or {@code by_duration:} and a non-negative ISO-8601 duration. */
    private static void checkAutoOffsetReset(Object value) {
        String text = ((String) value).toLowerCase(Locale.ROOT);
        if (text.equals("latest") || text.equals("earliest")) {
            return;
        }
        if (text.startsWith("by_duration:")) {
            String duration =
                    ((String) value).substring("by_duration:".length()).trim();
            try {
                if (Duration.parse(duration).isNegative()) {
                    throw new IllegalArgumentException("Negative duration is not allowed in by_duration: " + duration);
                }
                return;
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("Unable to parse the duration of by_duration: " + duration);
            }
        }
        throw new IllegalArgumentException("String must be one of: latest, earliest, by_duration:PnDTnHnMn.nS");
    }

    private static void checkNoDuplicateTags(Object value) {
        Set<Object> seen = new HashSet<>();
        for (Object tag : (List<?>) value) {
            if (!seen.add(tag)) {
                throw new IllegalArgumentException(
                        STREAMS_RACK_AWARE_ASSIGNMENT_TAGS + " must not contain duplicate tag keys.");
            }
        }
    }
}
