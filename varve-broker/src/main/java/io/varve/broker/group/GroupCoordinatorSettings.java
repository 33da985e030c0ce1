package io.varve.broker.group;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.coordinator.group.GroupCoordinatorConfig;
import io.varve.coordinator.group.assignor.PartitionAssignor;
import io.varve.coordinator.group.share.ShareGroupConfig;
import io.varve.coordinator.group.share.SimpleShareAssignor;

/** The group coordinator's broker settings: the internal topic's shape, threads, and the coordinator's own config. */
public record GroupCoordinatorSettings(
        int offsetsTopicPartitions,
        short offsetsTopicReplicationFactor,
        int offsetsTopicSegmentBytes,
        int threads,
        GroupCoordinatorConfig coordinator,
        ShareGroupConfig share) {

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
                share(c));
    }

    /** The group.share.* keys, each within its .min/.max keys as Kafka bounds them. */
    private static ShareGroupConfig share(BrokerConfig c) {
        int sessionMs = c.groupInt("group.share.session.timeout.ms");
        int heartbeatMs = c.groupInt("group.share.heartbeat.interval.ms");
        int lockMs = c.groupInt("group.share.record.lock.duration.ms");
        requireWithin(
                "group.share.session.timeout.ms",
                sessionMs,
                c.groupInt("group.share.min.session.timeout.ms"),
                c.groupInt("group.share.max.session.timeout.ms"));
        requireWithin(
                "group.share.heartbeat.interval.ms",
                heartbeatMs,
                c.groupInt("group.share.min.heartbeat.interval.ms"),
                c.groupInt("group.share.max.heartbeat.interval.ms"));
        requireWithin(
                "group.share.record.lock.duration.ms",
                lockMs,
                c.groupInt("group.share.min.record.lock.duration.ms"),
                c.groupInt("group.share.max.record.lock.duration.ms"));
        for (String assignor : c.groupShareAssignors()) {
            if (!SimpleShareAssignor.NAME.equals(assignor)) {
                throw new ConfigException("Invalid value '" + assignor
                        + "' in group.share.assignors: Varve provides the simple share assignor only.");
            }
        }
        try {
            return new ShareGroupConfig(
                    sessionMs,
                    heartbeatMs,
                    c.groupInt("group.share.max.size"),
                    lockMs,
                    c.groupInt("group.share.delivery.count.limit"),
                    c.groupInt("group.share.partition.max.record.locks"),
                    c.groupInt("group.share.max.share.sessions"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid share group configuration: " + e.getMessage() + ".");
        }
    }

    private static void requireWithin(String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ConfigException("Invalid value " + value + " for configuration " + key + ": must be between "
                    + min + " and " + max + " (the matching .min and .max keys).");
        }
    }
}
