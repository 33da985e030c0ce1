package io.varve.coordinator.group.record;

import java.util.Arrays;
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

    /** A classic protocol a classic member supports: its name and the member's metadata for it. */
    public record ClassicProtocolValue(String name, byte[] metadata) {
        @Override
        public boolean equals(Object o) {
            return o instanceof ClassicProtocolValue p && name.equals(p.name) && Arrays.equals(metadata, p.metadata);
        }

        @Override
        public int hashCode() {
            return 31 * name.hashCode() + Arrays.hashCode(metadata);
        }
    }

    /** What a member that still speaks the classic protocol keeps beyond a consumer member's fields. */
    public record ClassicMemberValue(int sessionTimeoutMs, List<ClassicProtocolValue> protocols) {
        public ClassicMemberValue {
            protocols = List.copyOf(protocols);
        }
    }

    /**
     * {@code state} is the ordinal of the reconciliation state (see the consumer package); {@code classic} is null
     * for a member using the consumer protocol.
     */
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
            Map<Uuid, Set<Integer>> pendingRevocation,
            ClassicMemberValue classic) {}
}
