package io.varve.coordinator.group.record;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * A KIP-848 consumer group: epochs, members with their subscriptions and current assignments, the target
 * assignment and the topic metadata the target was computed from. One record holds the whole group.
 */
public record ConsumerGroupValue(
        int groupEpoch,
        int assignmentEpoch,
        Map<String, TopicMetadata> subscribedTopics,
        List<Member> members,
        Map<String, Map<Uuid, Set<Integer>>> targetAssignment) {

    public ConsumerGroupValue {
        subscribedTopics = Map.copyOf(subscribedTopics);
        members = List.copyOf(members);
        targetAssignment = Map.copyOf(targetAssignment);
    }

    public record TopicMetadata(Uuid topicId, int numPartitions) {}

    /** {@code state} is the ordinal of the reconciliation state (see the consumer package). */
    public record Member(
            String memberId,
            String instanceId,
            String rackId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            List<String> subscribedTopicNames,
            String subscribedTopicRegex,
            String serverAssignor,
            int memberEpoch,
            int previousMemberEpoch,
            byte state,
            Map<Uuid, Set<Integer>> assigned,
            Map<Uuid, Set<Integer>> pendingRevocation) {}
}
