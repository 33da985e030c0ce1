package io.varve.coordinator.group.record;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A KIP-1071 streams group: epochs, the topology its members run, the metadata the target was computed from,
 * members with their current tasks, and the target assignment. One record holds the whole group.
 *
 * @param topology            null until the first member brings one
 * @param metadataHash        a digest of the topics the topology resolved against (a change bumps the group epoch)
 * @param targetAssignment    member id to its target tasks
 */
public record StreamsGroupValue(
        int groupEpoch,
        int assignmentEpoch,
        int endpointInformationEpoch,
        long metadataHash,
        Topology topology,
        List<Member> members,
        Map<String, Tasks> targetAssignment) {

    public StreamsGroupValue {
        members = List.copyOf(members);
        targetAssignment = Map.copyOf(targetAssignment);
    }

    /** A topic the topology names: {@code partitions} 0 means "derived by the coordinator". */
    public record TopicInfo(String name, int partitions, short replicationFactor, Map<String, String> configs) {
        public TopicInfo {
            configs = Map.copyOf(configs);
        }
    }

    /** Indexes into the subtopology's source, regex and repartition source lists. */
    public record CopartitionGroup(
            List<Short> sourceTopics, List<Short> sourceTopicRegex, List<Short> repartitionSources) {
        public CopartitionGroup {
            sourceTopics = List.copyOf(sourceTopics);
            sourceTopicRegex = List.copyOf(sourceTopicRegex);
            repartitionSources = List.copyOf(repartitionSources);
        }
    }

    public record Subtopology(
            String id,
            List<String> sourceTopics,
            List<String> sourceTopicRegex,
            List<TopicInfo> stateChangelogTopics,
            List<String> repartitionSinkTopics,
            List<TopicInfo> repartitionSourceTopics,
            List<CopartitionGroup> copartitionGroups) {
        public Subtopology {
            sourceTopics = List.copyOf(sourceTopics);
            sourceTopicRegex = List.copyOf(sourceTopicRegex);
            stateChangelogTopics = List.copyOf(stateChangelogTopics);
            repartitionSinkTopics = List.copyOf(repartitionSinkTopics);
            repartitionSourceTopics = List.copyOf(repartitionSourceTopics);
            copartitionGroups = List.copyOf(copartitionGroups);
        }
    }

    public record Topology(int epoch, List<Subtopology> subtopologies) {
        public Topology {
            subtopologies = List.copyOf(subtopologies);
        }
    }

    /** Tasks by subtopology id: the partitions of each. */
    public record Tasks(
            Map<String, Set<Integer>> active, Map<String, Set<Integer>> standby, Map<String, Set<Integer>> warmup) {}

    public record Endpoint(String host, int port) {}

    /** {@code state} is the ordinal of the reconciliation state (see the streams package). */
    public record Member(
            String memberId,
            String instanceId,
            String rackId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            int topologyEpoch,
            String processId,
            Endpoint userEndpoint,
            Map<String, String> clientTags,
            int memberEpoch,
            int previousMemberEpoch,
            byte state,
            Tasks assigned,
            Map<String, Set<Integer>> activePendingRevocation) {}
}
