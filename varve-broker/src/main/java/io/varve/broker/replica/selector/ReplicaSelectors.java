package io.varve.broker.replica.selector;

import java.util.Optional;

/**
 * {@code replica.selector.class}: unset (Kafka's default) means consumers always read from the leader; Kafka's
 * {@code org.apache.kafka.common.replica.RackAwareReplicaSelector} (or Varve's own class name) turns on the
 * rack-aware selector; Kafka's {@code LeaderSelector} is the explicit "leader only". Varve loads no plug-in classes,
 * so any other name is refused at start-up rather than silently ignored.
 */
public final class ReplicaSelectors {
    public static final String CONFIG = "replica.selector.class";

    private static final String KAFKA_RACK_AWARE = "org.apache.kafka.common.replica.RackAwareReplicaSelector";
    private static final String KAFKA_LEADER = "org.apache.kafka.common.replica.LeaderSelector";

    private ReplicaSelectors() {}

    /**
     * The selector {@code className} names; empty when consumers read from the leader only.
     *
     * @throws IllegalArgumentException a class Varve does not provide, in one sentence naming the key
     */
    public static Optional<ReplicaSelector> forClassName(String className) {
        if (className == null || className.isBlank() || className.trim().equals(KAFKA_LEADER)) {
            return Optional.empty();
        }
        String name = className.trim();
        if (name.equals(KAFKA_RACK_AWARE) || name.equals(RackAwareReplicaSelector.class.getName())) {
            return Optional.of(new RackAwareReplicaSelector());
        }
        throw new IllegalArgumentException(CONFIG + " " + name + " is not available: Varve loads no plug-in"
                + " classes; use " + KAFKA_RACK_AWARE + " (rack-aware follower fetching) or leave it unset (leader"
                + " only).");
    }
}
