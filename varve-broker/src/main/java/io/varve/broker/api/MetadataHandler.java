package io.varve.broker.api;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.BrokerInfo;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.metadata.controller.CreateTopicResult;
import io.varve.metadata.controller.TopicNames;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** Metadata: brokers, controller, cluster id and topics (by name or id), creating missing topics when allowed. */
public final class MetadataHandler implements ApiHandler {
    private final MetadataCache cache;
    private final ControllerCalls controller;
    private final boolean autoCreateTopicsEnable;

    public MetadataHandler(MetadataCache cache, ControllerCalls controller, boolean autoCreateTopicsEnable) {
        this.cache = cache;
        this.controller = controller;
        this.autoCreateTopicsEnable = autoCreateTopicsEnable;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        MetadataRequestData data = request.body();
        MetadataSnapshot snapshot = cache.snapshot();
        boolean allowAutoCreate = autoCreateTopicsEnable && (request.apiVersion() < 4 || data.allowAutoTopicCreation());
        List<String> toCreate = new ArrayList<>();
        if (data.topics() != null && allowAutoCreate) {
            for (MetadataRequestTopic t : data.topics()) {
                boolean byId = t.topicId() != null && !t.topicId().equals(Uuid.ZERO_UUID);
                if (!byId
                        && t.name() != null
                        && snapshot.topic(t.name()).isEmpty()
                        && TopicNames.validate(t.name()).isEmpty()) {
                    toCreate.add(t.name());
                }
            }
        }
        if (toCreate.isEmpty()) {
            return CompletableFuture.completedFuture(response(request, data, snapshot, Map.of()));
        }
        List<CreateTopicRequest> creates = toCreate.stream()
                .distinct()
                .map(name -> new CreateTopicRequest(name, -1, (short) -1, Map.of(), Map.of()))
                .toList();
        return controller.createTopics(creates, false).thenApply(results -> {
            Map<String, Errors> createErrors = new LinkedHashMap<>();
            for (CreateTopicResult r : results) {
                if (r.error() != Errors.NONE && r.error() != Errors.TOPIC_ALREADY_EXISTS) {
                    createErrors.put(r.name(), r.error());
                }
            }
            return response(request, data, cache.snapshot(), createErrors);
        });
    }

    private ApiMessage response(
            RequestContext request,
            MetadataRequestData data,
            MetadataSnapshot snapshot,
            Map<String, Errors> createErrors) {
        MetadataResponseData response =
                new MetadataResponseData().setClusterId(cache.clusterId()).setControllerId(cache.controllerId());
        for (BrokerInfo broker : snapshot.brokers()) {
            broker.endpoint(request.listenerName()).ifPresent(ep -> response.brokers()
                    .add(new MetadataResponseBroker()
                            .setNodeId(broker.nodeId())
                            .setHost(ep.host())
                            .setPort(ep.port())
                            .setRack(broker.rack())));
        }
        if (data.topics() == null) {
            snapshot.topics().forEach(t -> response.topics().add(topic(t)));
            return response;
        }
        for (MetadataRequestTopic requested : data.topics()) {
            Uuid id = requested.topicId();
            if (requested.name() == null || (id != null && !id.equals(Uuid.ZERO_UUID))) {
                TopicInfo topic = id == null ? null : snapshot.topicsById().get(id);
                response.topics()
                        .add(
                                topic != null
                                        ? topic(topic)
                                        : new MetadataResponseTopic()
                                                .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code())
                                                .setTopicId(id)
                                                .setName(null));
                continue;
            }
            String name = requested.name();
            TopicInfo topic = snapshot.topicsByName().get(name);
            if (topic != null) {
                if (response.topics().find(name) == null) {
                    response.topics().add(topic(topic));
                }
                continue;
            }
            Errors error = TopicNames.validate(name).isPresent()
                    ? Errors.INVALID_TOPIC_EXCEPTION
                    : createErrors.getOrDefault(name, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            if (response.topics().find(name) == null) {
                response.topics()
                        .add(new MetadataResponseTopic()
                                .setName(name)
                                .setErrorCode(error.code())
                                .setTopicId(Uuid.ZERO_UUID)
                                .setIsInternal(false));
            }
        }
        return response;
    }

    private static MetadataResponseTopic topic(TopicInfo topic) {
        MetadataResponseTopic t = new MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(topic.id())
                .setIsInternal(topic.isInternal())
                .setErrorCode(Errors.NONE.code());
        for (PartitionInfo p : topic.partitions().values()) {
            t.partitions()
                    .add(new MetadataResponsePartition()
                            .setPartitionIndex(p.partition())
                            .setErrorCode(Errors.NONE.code())
                            .setLeaderId(p.leader())
                            .setLeaderEpoch(p.leaderEpoch())
                            .setReplicaNodes(toList(p.replicas()))
                            .setIsrNodes(toList(p.isr()))
                            .setOfflineReplicas(new ArrayList<>()));
        }
        return t;
    }

    static List<Integer> toList(int[] ids) {
        return new ArrayList<>(Arrays.stream(ids).boxed().toList());
    }
}
