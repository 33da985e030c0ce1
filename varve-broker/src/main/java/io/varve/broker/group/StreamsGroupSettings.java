package io.varve.broker.group;

import io.varve.broker.config.BrokerConfig;
import io.varve.broker.config.ConfigException;
import io.varve.coordinator.group.streams.StreamsGroupConfig;

/** The {@code group.streams.*} keys, checked as Kafka checks them (each within its .min/.max bounds). */
final class StreamsGroupSettings {
    /** Kafka sends members this interval for reporting changelog offsets (what warm-up tasks would use). */
    private static final int TASK_OFFSET_INTERVAL_MS = 60_000;

    private StreamsGroupSettings() {}

    static StreamsGroupConfig from(BrokerConfig c) {
        int sessionMs = c.groupInt("group.streams.session.timeout.ms");
        int heartbeatMs = c.groupInt("group.streams.heartbeat.interval.ms");
        GroupCoordinatorSettings.requireWithin(
                "group.streams.session.timeout.ms",
                sessionMs,
                c.groupInt("group.streams.min.session.timeout.ms"),
                c.groupInt("group.streams.max.session.timeout.ms"));
        GroupCoordinatorSettings.requireWithin(
                "group.streams.heartbeat.interval.ms",
                heartbeatMs,
                c.groupInt("group.streams.min.heartbeat.interval.ms"),
                c.groupInt("group.streams.max.heartbeat.interval.ms"));
        int standbys = c.groupInt("group.streams.num.standby.replicas");
        int maxStandbys = c.groupInt("group.streams.max.standby.replicas");
        if (standbys > maxStandbys) {
            throw new ConfigException("Invalid value " + standbys + " for configuration "
                    + "group.streams.num.standby.replicas: must be at most group.streams.max.standby.replicas ("
                    + maxStandbys + ").");
        }
        try {
            return new StreamsGroupConfig(
                    sessionMs,
                    heartbeatMs,
                    c.groupInt("group.streams.max.size"),
                    standbys,
                    TASK_OFFSET_INTERVAL_MS,
                    c.groupInt("group.streams.initial.rebalance.delay.ms"));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("Invalid streams group configuration: " + e.getMessage() + ".");
        }
    }
}
