package io.varve.broker.api;

import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.metadata.controller.CreateTopicResult;
import io.varve.metadata.controller.QuorumController;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** CreateTopics: validation and creation through the controller, including validateOnly. */
public final class CreateTopicsHandler implements ApiHandler {
    /** Kafka's config source code for a topic-level override (DescribeConfigs' DYNAMIC_TOPIC_CONFIG). */
    private static final byte SOURCE_TOPIC_CONFIG = 1;
    /** Responses list the topic's configs (KIP-525) from this version on. */
    private static final short FIRST_CONFIGS_VERSION = 5;

    private final QuorumController controller;

    public CreateTopicsHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        CreateTopicsRequestData data = request.body();
        CreateTopicsResponseData response = new CreateTopicsResponseData();
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        for (CreatableTopic topic : data.topics()) {
            if (!seen.add(topic.name())) {
                duplicates.add(topic.name());
            }
        }
        Map<String, CreatableTopicResult> results = new LinkedHashMap<>();
        List<CreateTopicRequest> creates = new ArrayList<>();
        for (CreatableTopic topic : data.topics()) {
            if (duplicates.contains(topic.name())) {
                results.put(
                        topic.name(),
                        error(topic.name(), Errors.INVALID_REQUEST, "Found multiple entries for this topic."));
                continue;
            }
            Map<Integer, List<Integer>> assignments = new HashMap<>();
            for (CreatableReplicaAssignment a : topic.assignments()) {
                assignments.put(a.partitionIndex(), List.copyOf(a.brokerIds()));
            }
            Map<String, String> configs = new LinkedHashMap<>();
            for (CreatableTopicConfig c : topic.configs()) {
                configs.put(c.name(), c.value());
            }
            creates.add(new CreateTopicRequest(
                    topic.name(), topic.numPartitions(), topic.replicationFactor(), assignments, configs));
            results.put(topic.name(), null);
        }
        if (creates.isEmpty()) {
            results.values().forEach(response.topics()::add);
            return CompletableFuture.completedFuture(response);
        }
        return controller.createTopics(creates, data.validateOnly()).thenApply(created -> {
            for (CreateTopicResult r : created) {
                CreatableTopicResult result = result(r);
                if (request.apiVersion() < FIRST_CONFIGS_VERSION) {
                    result.setConfigs(null).setNumPartitions(-1).setReplicationFactor((short) -1);
                }
                results.put(r.name(), result);
            }
            results.values().forEach(r -> response.topics().add(r));
            return response;
        });
    }

    private static CreatableTopicResult result(CreateTopicResult r) {
        if (r.error() != Errors.NONE) {
            return error(r.name(), r.error(), r.errorMessage());
        }
        CreatableTopicResult result = new CreatableTopicResult()
                .setName(r.name())
                .setTopicId(r.topicId() == null ? Uuid.ZERO_UUID : r.topicId())
                .setErrorCode(Errors.NONE.code())
                .setNumPartitions(r.numPartitions())
                .setReplicationFactor(r.replicationFactor());
        List<CreatableTopicConfigs> configs = new ArrayList<>();
        r.configs()
                .forEach((k, v) -> configs.add(new CreatableTopicConfigs()
                        .setName(k)
                        .setValue(v)
                        .setReadOnly(false)
                        .setConfigSource(SOURCE_TOPIC_CONFIG)
                        .setIsSensitive(false)));
        return result.setConfigs(configs);
    }

    private static CreatableTopicResult error(String name, Errors error, String message) {
        return new CreatableTopicResult()
                .setName(name)
                .setErrorCode(error.code())
                .setErrorMessage(message != null ? message : error.message())
                .setTopicId(Uuid.ZERO_UUID)
                .setNumPartitions(-1)
                .setReplicationFactor((short) -1)
                .setTopicConfigErrorCode(error.code());
    }
}
