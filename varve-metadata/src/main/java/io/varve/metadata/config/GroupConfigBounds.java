package io.varve.metadata.config;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What a group config is checked against besides its own type and lower bound: the node's broker-wide bounds (Kafka's
 * {@code group.consumer.min.session.timeout.ms} … {@code group.streams.max.standby.replicas}) and the broker-wide values
 * a group falls back to where it sets only one key of a session-timeout/heartbeat pair.
 *
 * @param bounds         per group key, the inclusive range its value must lie in
 * @param brokerDefaults per group key, the broker-wide value the group uses when it does not set the key
 */
public record GroupConfigBounds(Map<String, Bound> bounds, Map<String, Integer> brokerDefaults) {

    /** An inclusive range; {@link Integer#MIN_VALUE} or {@link Integer#MAX_VALUE} for an open end. */
    public record Bound(int min, int max) {
        public Bound {
            if (min > max) {
                throw new IllegalArgumentException("empty range " + min + ".." + max);
            }
        }

        public static Bound atMost(int max) {
            return new Bound(Integer.MIN_VALUE, max);
        }

        public int clamp(int value) {
            return Math.max(min, Math.min(max, value));
        }

        public boolean contains(int value) {
            return value >= min && value <= max;
        }

        @Override
        public String toString() {
            if (min == Integer.MIN_VALUE) {
                return "at most " + max;
            }
            return max == Integer.MAX_VALUE ? "at least " + min : min + ".." + max;
        }

        /** Kafka's wording of the refusal of {@code value} for {@code key}. */
        String refusal(String key) {
            if (min == Integer.MIN_VALUE) {
                return key + " must be less than or equal to " + max;
            }
            if (max == Integer.MAX_VALUE) {
                return key + " must be greater than or equal to " + min;
            }
            return key + " must be in the range " + min + " to " + max + " inclusive.";
        }
    }

    public GroupConfigBounds {
        bounds = Map.copyOf(bounds);
        brokerDefaults = Map.copyOf(brokerDefaults);
    }

    /** Kafka's broker defaults (what a node without any {@code group.*} setting uses). */
    public static final GroupConfigBounds DEFAULTS = builder()
            .sessionPair(GroupConfigDef.CONSUMER_SESSION_TIMEOUT_MS, 45_000, 60_000, 45_000)
            .heartbeatPair(GroupConfigDef.CONSUMER_HEARTBEAT_INTERVAL_MS, 5_000, 15_000, 5_000)
            .sessionPair(GroupConfigDef.SHARE_SESSION_TIMEOUT_MS, 45_000, 60_000, 45_000)
            .heartbeatPair(GroupConfigDef.SHARE_HEARTBEAT_INTERVAL_MS, 5_000, 15_000, 5_000)
            .sessionPair(GroupConfigDef.STREAMS_SESSION_TIMEOUT_MS, 45_000, 60_000, 45_000)
            .heartbeatPair(GroupConfigDef.STREAMS_HEARTBEAT_INTERVAL_MS, 5_000, 15_000, 5_000)
            .bound(GroupConfigDef.SHARE_RECORD_LOCK_DURATION_MS, 15_000, 60_000)
            .bound(GroupConfigDef.STREAMS_NUM_STANDBY_REPLICAS, Integer.MIN_VALUE, 2)
            .build();

    public static Builder builder() {
        return new Builder();
    }

    /** The range of {@code key}, or none. */
    public Bound bound(String key) {
        return bounds.get(key);
    }

    /** The broker-wide value of {@code key}, or the key's own default when the broker has none. */
    public int brokerDefault(String key, int fallback) {
        return brokerDefaults.getOrDefault(key, fallback);
    }

    /** Collects the bounds; share.delivery.count.limit and share.partition.max.record.locks get Kafka's fixed ones. */
    public static final class Builder {
        private final Map<String, Bound> bounds = new HashMap<>();
        private final Map<String, Integer> defaults = new HashMap<>();

        private Builder() {
            bounds.put(GroupConfigDef.SHARE_DELIVERY_COUNT_LIMIT, new Bound(2, 10));
            bounds.put(GroupConfigDef.SHARE_PARTITION_MAX_RECORD_LOCKS, new Bound(100, 10_000));
        }

        public Builder bound(String key, int min, int max) {
            bounds.put(Objects.requireNonNull(key), new Bound(min, max));
            return this;
        }

        public Builder sessionPair(String key, int min, int max, int brokerValue) {
            bound(key, min, max);
            defaults.put(key, brokerValue);
            return this;
        }

        public Builder heartbeatPair(String key, int min, int max, int brokerValue) {
            return sessionPair(key, min, max, brokerValue);
        }

        public GroupConfigBounds build() {
            return new GroupConfigBounds(bounds, defaults);
        }
    }
}
