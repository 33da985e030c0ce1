package io.varve.broker.group;

import io.varve.broker.protocol.RequestContext;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.assignor.Assignments;
import io.varve.coordinator.group.consumer.ConsumerApi;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeRequestData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** ConsumerGroupHeartbeat (v0-1) and ConsumerGroupDescribe (v0-1): the KIP-848 consumer protocol. */
final class ConsumerGroupHandlers {
    /** ConsumerGroupDescribe v1's member types: a member of a migrated group may still speak the classic protocol. */
    private static final byte CLASSIC_MEMBER_TYPE = 0;

    private static final byte CONSUMER_MEMBER_TYPE = 1;

    private final GroupCoordinatorRuntime runtime;

    ConsumerGroupHandlers(GroupCoordinatorRuntime runtime) {
        this.runtime = runtime;
    }

    CompletableFuture<ApiMessage> heartbeat(RequestContext request) {
        ConsumerGroupHeartbeatRequestData data = request.body();
        Map<Uuid, Set<Integer>> owned = null;
        if (data.topicPartitions() != null) {
            owned = Assignments.mutable();
            for (ConsumerGroupHeartbeatRequestData.TopicPartitions t : data.topicPartitions()) {
                owned.computeIfAbsent(t.topicId(), id -> new HashSet<>()).addAll(t.partitions());
            }
        }
        ConsumerApi.HeartbeatRequest hb = new ConsumerApi.HeartbeatRequest(
                data.groupId(),
                data.memberId(),
                data.memberEpoch(),
                data.instanceId(),
                data.rackId(),
                data.rebalanceTimeoutMs(),
                data.subscribedTopicNames(),
                request.apiVersion() >= 1 ? data.subscribedTopicRegex() : null,
                data.serverAssignor(),
                owned,
                request.clientId(),
                ClassicGroupHandlers.clientHost(request),
                request.apiVersion());
        TopicsSnapshot topics = runtime.topics();
        return runtime.run(data.groupId(), shard -> shard.consumerGroupHeartbeat(hb, topics))
                .handle((r, e) -> {
                    ConsumerApi.HeartbeatResponse h = e == null
                            ? r
                            : ConsumerApi.HeartbeatResponse.error(GroupCoordinatorRuntime.errorOf(e), null);
                    ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData()
                            .setErrorCode(h.error().code())
                            .setErrorMessage(h.errorMessage())
                            .setMemberId(h.memberId())
                            .setMemberEpoch(h.memberEpoch())
                            .setHeartbeatIntervalMs(h.heartbeatIntervalMs());
                    if (h.assignment() != null) {
                        List<ConsumerGroupHeartbeatResponseData.TopicPartitions> tps = new ArrayList<>();
                        h.assignment()
                                .forEach((id, ps) -> tps.add(new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                                        .setTopicId(id)
                                        .setPartitions(new ArrayList<>(new TreeSet<>(ps)))));
                        response.setAssignment(
                                new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(tps));
                    }
                    return response;
                });
    }

    CompletableFuture<ApiMessage> describe(RequestContext request) {
        ConsumerGroupDescribeRequestData data = request.body();
        boolean withOperations = data.includeAuthorizedOperations();
        TopicsSnapshot topics = runtime.topics();
        List<CompletableFuture<ConsumerGroupDescribeResponseData.DescribedGroup>> futures = new ArrayList<>();
        for (String groupId : data.groupIds()) {
            futures.add(runtime.run(groupId, shard -> shard.consumerGroupDescribe(groupId, topics))
                    .handle((d, e) -> described(
                            e == null
                                    ? d
                                    : ConsumerApi.GroupDescription.error(
                                            groupId, GroupCoordinatorRuntime.errorOf(e), null),
                            topics,
                            withOperations)));
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> {
                    ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData();
                    futures.forEach(f -> response.groups().add(f.join()));
                    return response;
                });
    }

    private static ConsumerGroupDescribeResponseData.DescribedGroup described(
            ConsumerApi.GroupDescription d, TopicsSnapshot topics, boolean withOperations) {
        ConsumerGroupDescribeResponseData.DescribedGroup g = new ConsumerGroupDescribeResponseData.DescribedGroup()
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
        for (ConsumerApi.DescribedMember m : d.members()) {
            g.members()
                    .add(new ConsumerGroupDescribeResponseData.Member()
                            .setMemberId(m.memberId())
                            .setInstanceId(m.instanceId())
                            .setRackId(m.rackId())
                            .setMemberEpoch(m.memberEpoch())
                            .setClientId(m.clientId())
                            .setClientHost(m.clientHost())
                            .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopicNames()))
                            .setSubscribedTopicRegex(m.subscribedTopicRegex())
                            .setAssignment(assignment(m.assignment(), topics))
                            .setTargetAssignment(assignment(m.targetAssignment(), topics))
                            .setMemberType(m.classic() ? CLASSIC_MEMBER_TYPE : CONSUMER_MEMBER_TYPE));
        }
        return g;
    }

    private static ConsumerGroupDescribeResponseData.Assignment assignment(
            Map<Uuid, Set<Integer>> a, TopicsSnapshot topics) {
        ConsumerGroupDescribeResponseData.Assignment out = new ConsumerGroupDescribeResponseData.Assignment();
        a.forEach((id, ps) -> {
            TopicsSnapshot.Topic t = topics.byId(id);
            out.topicPartitions()
                    .add(new ConsumerGroupDescribeResponseData.TopicPartitions()
                            .setTopicId(id)
                            .setTopicName(t == null ? "" : t.name())
                            .setPartitions(new ArrayList<>(new TreeSet<>(ps))));
        });
        return out;
    }
}
