package io.varve.broker.replica.throttle;

import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;

/**
 * The replication throttles of this broker, as Kafka applies them: a replica listed in a topic's
 * {@code leader.replication.throttled.replicas} with this broker's id is throttled when this broker leads it and
 * sends to a follower not in the ISR, under {@code leader.replication.throttled.rate}; one listed in
 * {@code follower.replication.throttled.replicas} is throttled when this broker follows it while out of the ISR, under
 * {@code follower.replication.throttled.rate}. In-sync replicas are never throttled (they must keep up for acks=all).
 * The rates are dynamic broker configs (this broker's value, else the cluster default; unset: no limit). Each
 * direction has one quota shared by all its throttled replicas. Settings come from each metadata image ({@link
 * #update}); reads never lock.
 */
public final class ReplicationThrottles {
    public static final String LEADER_RATE = "leader.replication.throttled.rate";
    public static final String FOLLOWER_RATE = "follower.replication.throttled.rate";
    public static final String LEADER_REPLICAS = "leader.replication.throttled.replicas";
    public static final String FOLLOWER_REPLICAS = "follower.replication.throttled.replicas";

    private record Settings(
            long leaderRate,
            long followerRate,
            Map<String, ThrottledReplicas> leader,
            Map<String, ThrottledReplicas> follower) {}

    private final int brokerId;
    private final LongSupplier clockMs;
    private final ByteRateQuota leaderQuota = new ByteRateQuota();
    private final ByteRateQuota followerQuota = new ByteRateQuota();
    private volatile Settings settings =
            new Settings(ByteRateQuota.UNLIMITED, ByteRateQuota.UNLIMITED, Map.of(), Map.of());

    public ReplicationThrottles(int brokerId, LongSupplier clockMs) {
        this.brokerId = brokerId;
        this.clockMs = clockMs;
    }

    /**
     * Takes the settings of a metadata image: this broker's dynamic configs over the cluster defaults, and each
     * topic's configs by name.
     */
    public void update(
            Map<String, String> brokerConfigs,
            Map<String, String> defaultBrokerConfigs,
            Map<String, Map<String, String>> topicConfigs) {
        Map<String, ThrottledReplicas> leader = new HashMap<>();
        Map<String, ThrottledReplicas> follower = new HashMap<>();
        topicConfigs.forEach((topic, configs) -> {
            ThrottledReplicas l = ThrottledReplicas.parse(configs.get(LEADER_REPLICAS), brokerId);
            ThrottledReplicas f = ThrottledReplicas.parse(configs.get(FOLLOWER_REPLICAS), brokerId);
            if (l != ThrottledReplicas.NONE) {
                leader.put(topic, l);
            }
            if (f != ThrottledReplicas.NONE) {
                follower.put(topic, f);
            }
        });
        settings = new Settings(
                rate(brokerConfigs, defaultBrokerConfigs, LEADER_RATE),
                rate(brokerConfigs, defaultBrokerConfigs, FOLLOWER_RATE),
                Map.copyOf(leader),
                Map.copyOf(follower));
    }

    private static long rate(Map<String, String> node, Map<String, String> defaults, String key) {
        String value = node.getOrDefault(key, defaults.get(key));
        if (value == null) {
            return ByteRateQuota.UNLIMITED;
        }
        try {
            return Math.max(0, Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return ByteRateQuota.UNLIMITED; // validated on write; an odd stored value limits nothing
        }
    }

    /** Whether a leader's answer to {@code tp}'s out-of-sync follower must carry no records now. */
    public boolean leaderMustWait(TopicPartition tp) {
        Settings s = settings;
        ThrottledReplicas t = s.leader.get(tp.topic());
        return t != null && t.contains(tp.partition()) && leaderQuota.exceeded(s.leaderRate, clockMs.getAsLong());
    }

    /** Counts bytes a leader sent to an out-of-sync follower of {@code tp} against the leader quota if throttled. */
    public void leaderSent(TopicPartition tp, long bytes) {
        Settings s = settings;
        ThrottledReplicas t = s.leader.get(tp.topic());
        if (t != null && t.contains(tp.partition())) {
            leaderQuota.record(bytes, s.leaderRate, clockMs.getAsLong());
        }
    }

    /** Whether this broker, following {@code tp} out of the ISR, must leave it out of its next fetch. */
    public boolean followerMustWait(TopicPartition tp) {
        Settings s = settings;
        ThrottledReplicas t = s.follower.get(tp.topic());
        return t != null && t.contains(tp.partition()) && followerQuota.exceeded(s.followerRate, clockMs.getAsLong());
    }

    /** Counts bytes fetched for {@code tp} (followed out of the ISR) against the follower quota if throttled. */
    public void followerFetched(TopicPartition tp, long bytes) {
        Settings s = settings;
        ThrottledReplicas t = s.follower.get(tp.topic());
        if (t != null && t.contains(tp.partition())) {
            followerQuota.record(bytes, s.followerRate, clockMs.getAsLong());
        }
    }

    /** How long the follower quota needs before a throttled partition may be fetched again (0: now). */
    public long followerWaitMs() {
        return followerQuota.waitMs(settings.followerRate, clockMs.getAsLong());
    }
}
