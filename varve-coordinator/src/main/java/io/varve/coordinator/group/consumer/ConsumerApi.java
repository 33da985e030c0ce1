package io.varve.coordinator.group.consumer;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** ConsumerGroupHeartbeat and ConsumerGroupDescribe, free of wire classes. */
public final class ConsumerApi {
    /** Member epoch of a request that joins, leaves, or leaves as a static member that will come back. */
    public static final int JOIN_EPOCH = 0;

    public static final int LEAVE_EPOCH = -1;
    public static final int STATIC_LEAVE_EPOCH = -2;

    private ConsumerApi() {}

    /**
     * Fields that are null did not change since the last heartbeat (the protocol's convention).
     *
     * @param apiVersion 0: the coordinator generates member ids; 1+: the member brings its own, and may use a regex
     */
    public record HeartbeatRequest(
            String groupId,
            String memberId,
            int memberEpoch,
            String instanceId,
            String rackId,
            int rebalanceTimeoutMs,
            List<String> subscribedTopicNames,
            String subscribedTopicRegex,
            String serverAssignor,
            Map<Uuid, Set<Integer>> ownedPartitions,
            String clientId,
            String clientHost,
            short apiVersion) {}

    /** {@code assignment} null means "unchanged". */
    public record HeartbeatResponse(
            Errors error,
            String errorMessage,
            String memberId,
            int memberEpoch,
            int heartbeatIntervalMs,
            Map<Uuid, Set<Integer>> assignment) {
        public static HeartbeatResponse error(Errors error, String message) {
            return new HeartbeatResponse(error, message, null, 0, 0, null);
        }
    }

    public record DescribedMember(
            String memberId,
            String instanceId,
            String rackId,
            int memberEpoch,
            String clientId,
            String clientHost,
            List<String> subscribedTopicNames,
            String subscribedTopicRegex,
            Map<Uuid, Set<Integer>> assignment,
            Map<Uuid, Set<Integer>> targetAssignment,
            boolean classic) {}

    public record GroupDescription(
            String groupId,
            Errors error,
            String errorMessage,
            String state,
            int groupEpoch,
            int assignmentEpoch,
            String assignorName,
            List<DescribedMember> members) {
        public static GroupDescription error(String groupId, Errors error, String message) {
            return new GroupDescription(groupId, error, message, "Dead", -1, -1, "", List.of());
        }
    }
}
