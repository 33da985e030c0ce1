package io.varve.coordinator.group.classic;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/** The requests and responses of the classic protocol, free of wire classes. */
public final class ClassicApi {
    private ClassicApi() {}

    /**
     * @param requireKnownMemberId   JoinGroup v4+: a new dynamic member first gets MEMBER_ID_REQUIRED (KIP-394)
     * @param supportsSkipAssignment JoinGroup v9+: a rejoining static leader can be told to skip the assignment
     */
    public record JoinRequest(
            String groupId,
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            String protocolType,
            List<ClassicProtocol> protocols,
            boolean requireKnownMemberId,
            boolean supportsSkipAssignment,
            String reason) {
        public JoinRequest {
            protocols = List.copyOf(protocols);
        }
    }

    public record JoinedMember(String memberId, String groupInstanceId, byte[] metadata) {}

    public record JoinResponse(
            Errors error,
            int generationId,
            String protocolType,
            String protocolName,
            String leaderId,
            boolean skipAssignment,
            String memberId,
            List<JoinedMember> members) {
        public static JoinResponse error(Errors error, String memberId) {
            return new JoinResponse(error, -1, null, null, "", false, memberId == null ? "" : memberId, List.of());
        }
    }

    public record SyncRequest(
            String groupId,
            int generationId,
            String memberId,
            String groupInstanceId,
            String protocolType,
            String protocolName,
            Map<String, byte[]> assignments) {}

    public record SyncResponse(Errors error, String protocolType, String protocolName, byte[] assignment) {
        public static SyncResponse error(Errors error) {
            return new SyncResponse(error, null, null, new byte[0]);
        }
    }

    public record HeartbeatRequest(String groupId, int generationId, String memberId, String groupInstanceId) {}

    public record LeavingMember(String memberId, String groupInstanceId, String reason) {}

    public record LeaveRequest(String groupId, List<LeavingMember> members) {}

    public record LeftMember(String memberId, String groupInstanceId, Errors error) {}

    /** {@code error} is the group-level error; each member has its own. */
    public record LeaveResponse(Errors error, List<LeftMember> members) {}

    public record DescribedMember(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            byte[] metadata,
            byte[] assignment) {}

    /** DescribeGroups: members carry metadata and assignment only when the group is stable. */
    public record GroupDescription(
            String groupId,
            Errors error,
            String errorMessage,
            String state,
            String protocolType,
            String protocolData,
            List<DescribedMember> members) {
        public static GroupDescription error(String groupId, Errors error, String message) {
            return new GroupDescription(groupId, error, message, "Dead", "", "", List.of());
        }
    }
}
