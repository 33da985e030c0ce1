package io.varve.broker.replica.throttle;

import java.util.Set;
import java.util.TreeSet;

/**
 * One topic's {@code leader.replication.throttled.replicas} or {@code follower.replication.throttled.replicas}, as
 * seen by one broker: Kafka's value is {@code *} (every replica) or a list of {@code partition:brokerId}; this broker
 * throttles the partitions listed with its own id.
 */
public record ThrottledReplicas(boolean all, Set<Integer> partitions) {
    public static final ThrottledReplicas NONE = new ThrottledReplicas(false, Set.of());

    /** The partitions {@code value} throttles on {@code brokerId}; entries that do not parse are skipped. */
    public static ThrottledReplicas parse(String value, int brokerId) {
        if (value == null || value.isBlank()) {
            return NONE;
        }
        if (value.trim().equals("*")) {
            return new ThrottledReplicas(true, Set.of());
        }
        Set<Integer> partitions = new TreeSet<>();
        for (String entry : value.split(",")) {
            String[] parts = entry.trim().split(":");
            if (parts.length != 2) {
                continue; // the controller validates the value on write; an odd stored one throttles nothing
            }
            try {
                if (Integer.parseInt(parts[1].trim()) == brokerId) {
                    partitions.add(Integer.parseInt(parts[0].trim()));
                }
            } catch (NumberFormatException e) {
                // skipped, as above
            }
        }
        return partitions.isEmpty() ? NONE : new ThrottledReplicas(false, Set.copyOf(partitions));
    }

    public boolean contains(int partition) {
        return all || partitions.contains(partition);
    }
}
