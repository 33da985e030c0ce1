package io.varve.broker.group;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.coordinator.group.GroupCoordinatorConfig;
import io.varve.coordinator.group.assignor.PartitionAssignor;
import io.varve.coordinator.group.streams.StreamsGroupConfig;

/** The group coordinator's broker settings: the internal topic's shape, threads, and the coordinator's own config. */
public record GroupCoordinatorSettings(
        int offsetsTopicPartitions,
        short offsetsTopicReplicationFactor,
        int offsetsTopicSegmentBytes,
        int threads,
        GroupCoordinatorConfig coordinator,
        StreamsGroupConfig streams) {

    public static GroupCoordinatorSettings from(BrokerConfig c) {
        int consumerSessionMs = c.groupInt("group.consumer.session.timeout.ms");
        int heartbeatMs = c.groupInt("group.consumer.heartbeat.interval.ms");
        requireWithin(
                "group.consumer.session.timeout.ms",
                consumerSessionMs,
                c.groupInt("group.consumer.min.session.timeout.ms"),
                c.groupInt("group.consumer.max.session.timeout.ms"));
        requireWithin(
                "group.consumer.heartbeat.interval.ms",
                heartbeatMs,
                c.groupInt("group.consumer.min.heartbeat.interval.ms"),
                c.groupInt("group.consumer.max.heartbeat.interval.ms"));
        for (String assignor : c.groupConsumerAssignors()) {
            if (PartitionAssignor.forName(assignor) == null) {
                throw new ConfigException("Invalid value '" + assignor
                        + "' in group.consumer.assignors: Varve provides " + "the uniform and range assignors.");
            }
        }
        GroupCoordinatorConfig coordinator;
        try {
            coordinator = new GroupCoordinatorConfig(
                    c.groupInt("group.min.session.timeout.ms"),
                    c.groupInt("group.max.session.timeout.ms"),
                    c.groupInt("group.max.size"),
                    c.groupInt("group.initial.rebalance.delay.ms"),
                    consumerSessionMs,
                    heartbeatMs,
                    c.groupInt("group.consumer.max.size"),
                    c.groupConsumerAssignors(),
                    c.groupInt("offsets.retention.minutes") * 60_000L,
                    c.offsetsRetentionCheckIntervalMs(),
                    c.groupInt("offset.metadata.max.bytes"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid group coordinator configuration: " + e.getMessage() + ".");
        }
        return new GroupCoordinatorSettings(
                c.groupInt("offsets.topic.num.partitions"),
                (short) c.groupInt("offsets.topic.replication.factor"),
                c.groupInt("offsets.topic.segment.bytes"),
                c.groupInt("group.coordinator.threads"),
                coordinator,
                StreamsGroupSettings.from(c));
    }

    static void requireWithin(String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ConfigException("Invalid value " + value + " for configuration " + key + ": must be between "
                    + min + " and " + max + " (the matching .min and .max keys).");
        }
    }
}
