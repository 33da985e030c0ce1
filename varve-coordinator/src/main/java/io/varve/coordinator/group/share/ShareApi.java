package io.varve.coordinator.group.share;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/** ShareGroupHeartbeat and ShareGroupDescribe, free of wire classes. */
public final class ShareApi {
    public static final int JOIN_EPOCH = 0;
    public static final int LEAVE_EPOCH = -1;

    private ShareApi() {}

    /** {@code rackId} and {@code subscribedTopicNames} null: unchanged since the last heartbeat. */
    public record HeartbeatRequest(
            String groupId,
            String memberId,
            int memberEpoch,
            String rackId,
            List<String> subscribedTopicNames,
            String clientId,
            String clientHost) {}

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
            String rackId,
            int memberEpoch,
            String clientId,
            String clientHost,
            List<String> subscribedTopicNames,
            Map<Uuid, Set<Integer>> assignment) {}

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
