package io.varve.coordinator.group.streams;

import io.varve.coordinator.group.record.StreamsGroupValue;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.protocol.Errors;

/** StreamsGroupHeartbeat and StreamsGroupDescribe, free of wire classes. */
public final class StreamsApi {
    public static final int JOIN_EPOCH = 0;
    public static final int LEAVE_EPOCH = -1;
    public static final int STATIC_LEAVE_EPOCH = -2;

    /** The heartbeat's status codes, numbered as Kafka numbers them. */
    public static final byte STALE_TOPOLOGY = 0;

    public static final byte MISSING_SOURCE_TOPICS = 1;
    public static final byte INCORRECTLY_PARTITIONED_TOPICS = 2;
    public static final byte MISSING_INTERNAL_TOPICS = 3;
    public static final byte SHUTDOWN_APPLICATION = 4;
    public static final byte ASSIGNMENT_DELAYED = 5;

    private StreamsApi() {}

    public record Status(byte code, String detail) {}

    /**
     * Fields that are null did not change since the last heartbeat (the protocol's convention).
     *
     * @param topology only on joining (member epoch 0)
     */
    public record HeartbeatRequest(
            String groupId,
            String memberId,
            int memberEpoch,
            int endpointInformationEpoch,
            String instanceId,
            String rackId,
            int rebalanceTimeoutMs,
            StreamsGroupValue.Topology topology,
            Map<String, Set<Integer>> activeTasks,
            Map<String, Set<Integer>> standbyTasks,
            Map<String, Set<Integer>> warmupTasks,
            String processId,
            StreamsGroupValue.Endpoint userEndpoint,
            Map<String, String> clientTags,
            boolean shutdownApplication,
            String clientId,
            String clientHost) {}

    /** One member's endpoint and the source partitions of its active and standby (and warm-up) tasks. */
    public record EndpointPartitions(
            StreamsGroupValue.Endpoint endpoint,
            Map<String, Set<Integer>> activePartitions,
            Map<String, Set<Integer>> standbyPartitions) {}

    /**
     * {@code assignment} null means "unchanged"; {@code endpoints} null likewise. {@code topicsToCreate} is for the
     * broker: internal topics it must create (the coordinator reports them missing until they exist).
     */
    public record HeartbeatResponse(
            Errors error,
            String errorMessage,
            String memberId,
            int memberEpoch,
            int heartbeatIntervalMs,
            List<Status> statuses,
            TasksTuple assignment,
            int endpointInformationEpoch,
            List<EndpointPartitions> endpoints,
            List<StreamsGroupValue.TopicInfo> topicsToCreate) {
        public static HeartbeatResponse error(Errors error, String message) {
            return new HeartbeatResponse(error, message, null, 0, 0, List.of(), null, 0, null, List.of());
        }
    }

    public record DescribedMember(
            String memberId,
            int memberEpoch,
            String instanceId,
            String rackId,
            String clientId,
            String clientHost,
            int topologyEpoch,
            String processId,
            StreamsGroupValue.Endpoint userEndpoint,
            Map<String, String> clientTags,
            TasksTuple assignment,
            TasksTuple targetAssignment) {}

    /** {@code sourceTopics}: the subtopologies as configured (regexes resolved); null when not ready. */
    public record GroupDescription(
            String groupId,
            Errors error,
            String errorMessage,
            String state,
            int groupEpoch,
            int assignmentEpoch,
            StreamsGroupValue.Topology topology,
            Map<String, List<String>> sourceTopics,
            List<DescribedMember> members) {
        public static GroupDescription error(String groupId, Errors error, String message) {
            return new GroupDescription(groupId, error, message, "Dead", -1, -1, null, null, List.of());
        }
    }
}
