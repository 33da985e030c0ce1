package io.varve.coordinator.group.assignor;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/** Computes a consumer group's target assignment. */
public interface PartitionAssignor {
    /** The name members ask for in {@code group.remote.assignor}. */
    String name();

    /** Every member of the spec gets an entry, possibly empty. */
    Map<String, Map<Uuid, Set<Integer>>> assign(Spec spec);

    /** One member: its id and the topics (by id) it subscribes to that exist. */
    record MemberSpec(String memberId, String instanceId, String rackId, Set<Uuid> subscribedTopicIds) {}

    /**
     * @param members            sorted by member id
     * @param partitionsPerTopic partition count of every subscribed topic
     * @param currentTarget      the previous target assignment, for stickiness
     */
    record Spec(
            List<MemberSpec> members,
            Map<Uuid, Integer> partitionsPerTopic,
            Map<String, Map<Uuid, Set<Integer>>> currentTarget) {}

    static PartitionAssignor forName(String name) {
        return switch (name) {
            case "uniform", "org.apache.kafka.coordinator.group.assignor.UniformAssignor" -> new UniformAssignor();
            case "range", "org.apache.kafka.coordinator.group.assignor.RangeAssignor" -> new RangeAssignor();
            default -> null;
        };
    }
}
