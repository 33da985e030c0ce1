package io.varve.broker.group;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.protocol.RequestContext;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.record.StreamsGroupValue;
import io.varve.coordinator.group.streams.StreamsApi;
import io.varve.coordinator.group.streams.TasksTuple;
import io.varve.metadata.controller.CreateTopicRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import org.apache.kafka.common.message.StreamsGroupDescribeRequestData;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * StreamsGroupHeartbeat (v0-1) and StreamsGroupDescribe (v0-1): KIP-1071 streams groups. Served only while the
 * cluster has {@code streams.version} 1 or higher finalized (UNSUPPORTED_VERSION otherwise, as Kafka answers).
 * The internal topics a heartbeat reports missing are created here, through the controller, once each; the
 * coordinator keeps reporting them until they show up in the metadata.
 */
final class StreamsGroupHandlers {
    private static final Logger log = LoggerFactory.getLogger(StreamsGroupHandlers.class);
    /** Kafka's default acceptable recovery lag, sent to v0 clients (v1 learns -1: no warm-up tasks here). */
    private static final int ACCEPTABLE_RECOVERY_LAG_LEGACY = 10_000;

    private final GroupCoordinatorRuntime runtime;
    private final ControllerCalls controller;
    private final IntSupplier streamsVersion;
    /** Internal topics whose creation is under way, so that every heartbeat does not ask again. */
    private final Set<String> creating = ConcurrentHashMap.newKeySet();

    StreamsGroupHandlers(GroupCoordinatorRuntime runtime, ControllerCalls controller, IntSupplier streamsVersion) {
        this.runtime = runtime;
        this.controller = controller;
        this.streamsVersion = streamsVersion;
    }

    private boolean enabled() {
        return streamsVersion.getAsInt() >= 1;
    }

    CompletableFuture<ApiMessage> heartbeat(RequestContext request) {
        StreamsGroupHeartbeatRequestData data = request.body();
        if (!enabled()) {
            return CompletableFuture.completedFuture(new StreamsGroupHeartbeatResponseData()
                    .setErrorCode(Errors.UNSUPPORTED_VERSION.code())
                    .setErrorMessage("The cluster does not have streams.version 1 finalized: streams groups are "
                            + "not enabled."));
        }
        StreamsApi.HeartbeatRequest hb = new StreamsApi.HeartbeatRequest(
                data.groupId(),
                data.memberId(),
                data.memberEpoch(),
                data.endpointInformationEpoch(),
                data.instanceId(),
                data.rackId(),
                data.rebalanceTimeoutMs(),
                StreamsWire.topology(data.topology()),
                StreamsWire.tasks(data.activeTasks()),
                StreamsWire.tasks(data.standbyTasks()),
                StreamsWire.tasks(data.warmupTasks()),
                data.processId(),
                data.userEndpoint() == null
                        ? null
                        : new StreamsGroupValue.Endpoint(
                                data.userEndpoint().host(), data.userEndpoint().port()),
                data.clientTags() == null ? null : StreamsWire.tags(data.clientTags()),
                data.shutdownApplication(),
                request.clientId(),
                ClassicGroupHandlers.clientHost(request));
        TopicsSnapshot topics = runtime.topics();
        short version = request.apiVersion();
        return runtime.run(data.groupId(), shard -> shard.streamsGroupHeartbeat(hb, topics))
                .handle((r, e) -> {
                    StreamsApi.HeartbeatResponse h = e == null
                            ? r
                            : StreamsApi.HeartbeatResponse.error(GroupCoordinatorRuntime.errorOf(e), null);
                    createInternalTopics(data.groupId(), h.topicsToCreate());
                    return response(h, version, runtime.settings().streams().taskOffsetIntervalMs());
                });
    }

    private static StreamsGroupHeartbeatResponseData response(
            StreamsApi.HeartbeatResponse h, short version, int taskOffsetIntervalMs) {
        StreamsGroupHeartbeatResponseData response = new StreamsGroupHeartbeatResponseData()
                .setErrorCode(h.error().code())
                .setErrorMessage(h.errorMessage())
                .setMemberId(h.memberId() == null ? "" : h.memberId())
                .setMemberEpoch(h.memberEpoch())
                .setHeartbeatIntervalMs(h.heartbeatIntervalMs())
                .setTaskOffsetIntervalMs(taskOffsetIntervalMs)
                .setEndpointInformationEpoch(h.endpointInformationEpoch());
        if (version == 0) {
            response.setAcceptableRecoveryLagLegacy(ACCEPTABLE_RECOVERY_LAG_LEGACY);
        } else {
            response.setAcceptableRecoveryLag(-1);
        }
        if (h.error() != Errors.NONE) {
            return response;
        }
        List<StreamsGroupHeartbeatResponseData.Status> statuses = new ArrayList<>();
        for (StreamsApi.Status s : h.statuses()) {
            statuses.add(new StreamsGroupHeartbeatResponseData.Status()
                    .setStatusCode(s.code())
                    .setStatusDetail(s.detail()));
        }
        response.setStatus(statuses);
        TasksTuple a = h.assignment();
        if (a != null) {
            response.setActiveTasks(StreamsWire.heartbeatTasks(a.active()))
                    .setStandbyTasks(StreamsWire.heartbeatTasks(a.standby()))
                    .setWarmupTasks(StreamsWire.heartbeatTasks(a.warmup()));
        }
        if (h.endpoints() != null) {
            List<StreamsGroupHeartbeatResponseData.EndpointToPartitions> endpoints = new ArrayList<>();
            for (StreamsApi.EndpointPartitions ep : h.endpoints()) {
                endpoints.add(new StreamsGroupHeartbeatResponseData.EndpointToPartitions()
                        .setUserEndpoint(new StreamsGroupHeartbeatResponseData.Endpoint()
                                .setHost(ep.endpoint().host())
                                .setPort(ep.endpoint().port()))
                        .setActivePartitions(StreamsWire.topicPartitions(ep.activePartitions()))
                        .setStandbyPartitions(StreamsWire.topicPartitions(ep.standbyPartitions())));
            }
            response.setPartitionsByUserEndpoint(endpoints);
        }
        return response;
    }

    /** Asks the controller for the missing internal topics, as Kafka's coordinator does (errors are logged). */
    private void createInternalTopics(String groupId, List<StreamsGroupValue.TopicInfo> topics) {
        List<CreateTopicRequest> requests = new ArrayList<>();
        for (StreamsGroupValue.TopicInfo t : topics) {
            if (creating.add(t.name())) {
                short rf = t.replicationFactor() > 0 ? t.replicationFactor() : -1;
                requests.add(new CreateTopicRequest(t.name(), t.partitions(), rf, Map.of(), t.configs()));
            }
        }
        if (requests.isEmpty()) {
            return;
        }
        controller.createTopics(requests, false).whenComplete((results, e) -> {
            requests.forEach(r -> creating.remove(r.name()));
            if (e != null) {
                log.warn("Creating the internal topics of streams group {} failed: {}", groupId, e.toString());
                return;
            }
            results.forEach(r -> {
                if (r.error() == Errors.NONE) {
                    log.info("Created internal topic {} of streams group {}", r.name(), groupId);
                } else if (r.error() != Errors.TOPIC_ALREADY_EXISTS) {
                    log.warn(
                            "Creating internal topic {} of streams group {} failed: {} {}",
                            r.name(),
                            groupId,
                            r.error(),
                            r.errorMessage());
                }
            });
        });
    }

    CompletableFuture<ApiMessage> describe(RequestContext request) {
        StreamsGroupDescribeRequestData data = request.body();
        boolean withOperations = data.includeAuthorizedOperations();
        boolean withDescription = request.apiVersion() >= 1 && data.includeTopologyDescription();
        boolean enabled = enabled();
        TopicsSnapshot topics = runtime.topics();
        List<CompletableFuture<StreamsGroupDescribeResponseData.DescribedGroup>> futures = new ArrayList<>();
        for (String groupId : data.groupIds()) {
            CompletableFuture<StreamsApi.GroupDescription> f = enabled
                    ? runtime.run(groupId, shard -> shard.streamsGroupDescribe(groupId, topics))
                    : CompletableFuture.completedFuture(StreamsApi.GroupDescription.error(
                            groupId, Errors.UNSUPPORTED_VERSION, "streams.version 1 is not finalized."));
            futures.add(f.handle((d, e) -> StreamsWire.described(
                    e == null
                            ? d
                            : StreamsApi.GroupDescription.error(groupId, GroupCoordinatorRuntime.errorOf(e), null),
                    withOperations
                            ? GroupAdminHandlers.ALL_GROUP_OPERATIONS
                            : GroupAdminHandlers.OPERATIONS_NOT_REQUESTED,
                    withDescription)));
        }
        return CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> {
                    StreamsGroupDescribeResponseData response = new StreamsGroupDescribeResponseData();
                    futures.forEach(f -> response.groups().add(f.join()));
                    return response;
                });
    }
}
