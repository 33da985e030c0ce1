package io.varve.broker.group;

import io.varve.broker.protocol.RequestContext;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.share.ShareApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ShareGroupDescribeRequestData;
import org.apache.kafka.common.message.ShareGroupDescribeResponseData;
import org.apache.kafka.common.message.ShareGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ShareGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** ShareGroupHeartbeat (v1) and ShareGroupDescribe (v1): KIP-932 share group membership. */
final class ShareGroupHandlers {
    private final GroupCoordinatorRuntime runtime;

    ShareGroupHandlers(GroupCoordinatorRuntime runtime) {
        this.runtime = runtime;
    }

    CompletableFuture<ApiMessage> heartbeat(RequestContext request) {
        ShareGroupHeartbeatRequestData data = request.body();
        ShareApi.HeartbeatRequest hb = new ShareApi.HeartbeatRequest(
                data.groupId(),
                data.memberId(),
                data.memberEpoch(),
                data.rackId(),
                data.subscribedTopicNames(),
                request.clientId(),
                ClassicGroupHandlers.clientHost(request));
        TopicsSnapshot topics = runtime.topics();
        return runtime.run(data.groupId(), shard -> shard.shareGroupHeartbeat(hb, topics))
                .handle((r, e) -> {
                    ShareApi.HeartbeatResponse h =
                            e == null ? r : ShareApi.HeartbeatResponse.error(GroupCoordinatorRuntime.errorOf(e), null);
                    ShareGroupHeartbeatResponseData response = new ShareGroupHeartbeatResponseData()
                            .setErrorCode(h.error().code())
                            .setErrorMessage(h.errorMessage())
                            .setMemberId(h.memberId())
                            .setMemberEpoch(h.memberEpoch())
                            .setHeartbeatIntervalMs(h.heartbeatIntervalMs());
                    if (h.assignment() != null) {
                        List<ShareGroupHeartbeatResponseData.TopicPartitions> tps = new ArrayList<>();
                        h.assignment()
                                .forEach((id, ps) -> tps.add(new ShareGroupHeartbeatResponseData.TopicPartitions()
                                        .setTopicId(id)
                                        .setPartitions(new ArrayList<>(new TreeSet<>(ps)))));
                        response.setAssignment(
                                new ShareGroupHeartbeatResponseData.Assignment().setTopicPartitions(tps));
                    }
                    return response;
                });
    }

    CompletableFuture<ApiMessage> describe(RequestContext request) {
        ShareGroupDescribeRequestData data = request.body();
        boolean withOperations = data.includeAuthorizedOperations();
        TopicsSnapshot topics = runtime.topics();
        List<CompletableFuture<ShareGroupDescribeResponseData.DescribedGroup>> futures = new ArrayList<>();
        for (String groupId : data.groupIds()) {
            futures.add(runtime.run(groupId, shard -> shard.shareGroupDescribe(groupId, topics))
                    .handle((d, e) -> described(
                            e == null
                                    ? d
                                    : ShareApi.GroupDescription.error(
                                            groupId, GroupCoordinatorRuntime.errorOf(e), null),
                            topics,
                            withOperations)));
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> {
                    ShareGroupDescribeResponseData response = new ShareGroupDescribeResponseData();
                    futures.forEach(f -> response.groups().add(f.join()));
                    return response;
                });
    }

    private static ShareGroupDescribeResponseData.DescribedGroup described(
            ShareApi.GroupDescription d, TopicsSnapshot topics, boolean withOperations) {
        ShareGroupDescribeResponseData.DescribedGroup g = new ShareGroupDescribeResponseData.DescribedGroup()
                .setGroupId(d.groupId())
                .setErrorCode(d.error().code())
                .setErrorMessage(d.errorMessage())
                .setGroupState(d.state())
                .setGroupEpoch(d.groupEpoch())
                .setAssignmentEpoch(d.assignmentEpoch())
                .setAssignorName(d.assignorName())
                .setAuthorizedOperations(
                        withOperations
                                ? GroupAdminHandlers.ALL_GROUP_OPERATIONS
                                : GroupAdminHandlers.OPERATIONS_NOT_REQUESTED);
        for (ShareApi.DescribedMember m : d.members()) {
            g.members()
                    .add(new ShareGroupDescribeResponseData.Member()
                            .setMemberId(m.memberId())
                            .setRackId(m.rackId())
                            .setMemberEpoch(m.memberEpoch())
                            .setClientId(m.clientId())
                            .setClientHost(m.clientHost())
                            .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopicNames()))
                            .setAssignment(assignment(m.assignment(), topics)));
        }
        return g;
    }

    private static ShareGroupDescribeResponseData.Assignment assignment(
            Map<Uuid, Set<Integer>> a, TopicsSnapshot topics) {
        ShareGroupDescribeResponseData.Assignment out = new ShareGroupDescribeResponseData.Assignment();
        a.forEach((id, ps) -> {
            TopicsSnapshot.Topic t = topics.byId(id);
            out.topicPartitions()
                    .add(new ShareGroupDescribeResponseData.TopicPartitions()
                            .setTopicId(id)
                            .setTopicName(t == null ? "" : t.name())
                            .setPartitions(new ArrayList<>(new TreeSet<>(ps))));
        });
        return out;
    }
}
