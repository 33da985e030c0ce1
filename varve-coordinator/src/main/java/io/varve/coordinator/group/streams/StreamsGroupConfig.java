package io.varve.coordinator.group.streams;

/**
 * The streams group settings, Kafka's keys and defaults.
 *
 * @param sessionTimeoutMs       group.streams.session.timeout.ms (45 s)
 * @param heartbeatIntervalMs    group.streams.heartbeat.interval.ms (5 s)
 * @param maxSize                group.streams.max.size (unbounded)
 * @param numStandbyReplicas     group.streams.num.standby.replicas (0; the client's num.standby.replicas is not used)
 * @param taskOffsetIntervalMs   how often members report their changelog offsets (Kafka sends 60 s)
 * @param initialRebalanceDelayMs group.streams.initial.rebalance.delay.ms (3 s): how long an empty group waits for
 *                               more members before its first assignment
 */
public record StreamsGroupConfig(
        int sessionTimeoutMs,
        int heartbeatIntervalMs,
        int maxSize,
        int numStandbyReplicas,
        int taskOffsetIntervalMs,
        int initialRebalanceDelayMs) {

    public StreamsGroupConfig {
        if (heartbeatIntervalMs >= sessionTimeoutMs) {
            throw new IllegalArgumentException("group.streams.heartbeat.interval.ms " + heartbeatIntervalMs
                    + " must be lower than group.streams.session.timeout.ms " + sessionTimeoutMs);
        }
        if (maxSize < 1 || numStandbyReplicas < 0 || taskOffsetIntervalMs < 1 || initialRebalanceDelayMs < 0) {
            throw new IllegalArgumentException("streams group settings out of range: " + this);
        }
    }

    public static StreamsGroupConfig defaults() {
        return new StreamsGroupConfig(45_000, 5000, Integer.MAX_VALUE, 0, 60_000, 3000);
    }

    public StreamsGroupConfig withInitialRebalanceDelayMs(int delayMs) {
        return new StreamsGroupConfig(
                sessionTimeoutMs, heartbeatIntervalMs, maxSize, numStandbyReplicas, taskOffsetIntervalMs, delayMs);
    }

    public StreamsGroupConfig withNumStandbyReplicas(int replicas) {
        return new StreamsGroupConfig(
                sessionTimeoutMs,
                heartbeatIntervalMs,
                maxSize,
                replicas,
                taskOffsetIntervalMs,
                initialRebalanceDelayMs);
    }
}
