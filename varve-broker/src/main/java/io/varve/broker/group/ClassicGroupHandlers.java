package io.varve.broker.group;

import io.varve.broker.protocol.RequestContext;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.classic.ClassicApi;
import io.varve.coordinator.group.classic.ClassicProtocol;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** JoinGroup (v0-9), SyncGroup (v0-5), Heartbeat (v0-4) and LeaveGroup (v0-5): wire messages to the classic protocol. */
final class ClassicGroupHandlers {
    private final GroupCoordinatorRuntime runtime;

    ClassicGroupHandlers(GroupCoordinatorRuntime runtime) {
        this.runtime = runtime;
    }

    static String clientHost(RequestContext request) {
        return request.clientAddress() == null
                ? ""
                : "/" + request.clientAddress().getAddress().getHostAddress();
    }

    CompletableFuture<ApiMessage> join(RequestContext request) {
        JoinGroupRequestData data = request.body();
        short version = request.apiVersion();
        List<ClassicProtocol> protocols = new ArrayList<>();
        for (JoinGroupRequestProtocol p : data.protocols()) {
            protocols.add(new ClassicProtocol(p.name(), p.metadata()));
        }
        int rebalanceTimeoutMs =
                version >= 1 && data.rebalanceTimeoutMs() >= 0 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs();
        ClassicApi.JoinRequest join = new ClassicApi.JoinRequest(
                data.groupId(),
                data.memberId(),
                version >= 5 ? data.groupInstanceId() : null,
                request.clientId(),
                clientHost(request),
                data.sessionTimeoutMs(),
                rebalanceTimeoutMs,
                data.protocolType(),
                protocols,
                version >= 4,
                version >= 9,
                version >= 8 ? data.reason() : null);
        TopicsSnapshot topics = runtime.topics();
        return runtime.run(data.groupId(), shard -> shard.joinGroup(join, topics))
                .handle((r, e) -> e == null
                        ? joinResponse(r, version)
                        : joinResponse(
                                ClassicApi.JoinResponse.error(GroupCoordinatorRuntime.errorOf(e), data.memberId()),
                                version));
    }

    private static JoinGroupResponseData joinResponse(ClassicApi.JoinResponse r, short version) {
        List<JoinGroupResponseMember> members = new ArrayList<>();
        for (ClassicApi.JoinedMember m : r.members()) {
            members.add(new JoinGroupResponseMember()
                    .setMemberId(m.memberId())
                    .setGroupInstanceId(m.groupInstanceId())
                    .setMetadata(m.metadata() == null ? new byte[0] : m.metadata()));
        }
        String protocolName = r.protocolName();
        if (protocolName == null && version < 7) {
            protocolName = "";
        }
        return new JoinGroupResponseData()
                .setErrorCode(r.error().code())
                .setGenerationId(r.generationId())
                .setProtocolType(r.protocolType())
                .setProtocolName(protocolName)
                .setLeader(r.leaderId() == null ? "" : r.leaderId())
                .setSkipAssignment(r.skipAssignment())
                .setMemberId(r.memberId())
                .setMembers(members);
    }

    CompletableFuture<ApiMessage> sync(RequestContext request) {
        SyncGroupRequestData data = request.body();
        short version = request.apiVersion();
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequestAssignment a : data.assignments()) {
            assignments.put(a.memberId(), a.assignment());
        }
        ClassicApi.SyncRequest sync = new ClassicApi.SyncRequest(
                data.groupId(),
                data.generationId(),
                data.memberId(),
                version >= 3 ? data.groupInstanceId() : null,
                version >= 5 ? data.protocolType() : null,
                version >= 5 ? data.protocolName() : null,
                assignments);
        return runtime.run(data.groupId(), shard -> shard.syncGroup(sync)).handle((r, e) -> {
            ClassicApi.SyncResponse s =
                    e == null ? r : ClassicApi.SyncResponse.error(GroupCoordinatorRuntime.errorOf(e));
            return new SyncGroupResponseData()
                    .setErrorCode(s.error().code())
                    .setProtocolType(s.protocolType())
                    .setProtocolName(s.protocolName())
                    .setAssignment(s.assignment());
        });
    }

    CompletableFuture<ApiMessage> heartbeat(RequestContext request) {
        HeartbeatRequestData data = request.body();
        ClassicApi.HeartbeatRequest hb = new ClassicApi.HeartbeatRequest(
                data.groupId(),
                data.generationId(),
                data.memberId(),
                request.apiVersion() >= 3 ? data.groupInstanceId() : null);
        return runtime.run(data.groupId(), shard -> shard.heartbeat(hb))
                .handle((error, e) -> new HeartbeatResponseData()
                        .setErrorCode((e == null ? error : GroupCoordinatorRuntime.errorOf(e)).code()));
    }

    CompletableFuture<ApiMessage> leave(RequestContext request) {
        LeaveGroupRequestData data = request.body();
        short version = request.apiVersion();
        List<ClassicApi.LeavingMember> leaving = new ArrayList<>();
        if (version >= 3) {
            for (MemberIdentity m : data.members()) {
                leaving.add(new ClassicApi.LeavingMember(
                        m.memberId(), m.groupInstanceId(), version >= 5 ? m.reason() : null));
            }
        } else {
            leaving.add(new ClassicApi.LeavingMember(data.memberId(), null, null));
        }
        return runtime.run(
                        data.groupId(), shard -> shard.leaveGroup(new ClassicApi.LeaveRequest(data.groupId(), leaving)))
                .handle((r, e) -> {
                    Errors groupError = e == null ? r.error() : GroupCoordinatorRuntime.errorOf(e);
                    LeaveGroupResponseData response = new LeaveGroupResponseData();
                    if (version < 3) {
                        Errors memberError = groupError != Errors.NONE
                                ? groupError
                                : r.members().get(0).error();
                        return response.setErrorCode(memberError.code());
                    }
                    response.setErrorCode(groupError.code());
                    if (groupError == Errors.NONE) {
                        for (ClassicApi.LeftMember m : r.members()) {
                            response.members()
                                    .add(new MemberResponse()
                                            .setMemberId(m.memberId())
                                            .setGroupInstanceId(m.groupInstanceId())
                                            .setErrorCode(m.error().code()));
                        }
                    }
                    return response;
                });
    }
}
