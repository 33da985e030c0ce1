package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.replication.PartitionResultError;
import io.varve.metadata.controller.replication.ReplicationControl.ElectionType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersRequestData.TopicPartitions;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.message.ElectLeadersResponseData.PartitionResult;
import org.apache.kafka.common.message.ElectLeadersResponseData.ReplicaElectionResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ElectLeaders (v0 is always PREFERRED; v1+ names the type): the controller elects, each partition gets its
 * error code (ELECTION_NOT_NEEDED, PREFERRED_LEADER_NOT_AVAILABLE, …); null partitions means all of them.
 */
public final class ElectLeadersHandler implements ApiHandler {
    private final QuorumController controller;

    public ElectLeadersHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ElectLeadersRequestData data = request.body();
        ElectLeadersResponseData response = new ElectLeadersResponseData().setErrorCode(Errors.NONE.code());
        ElectionType type;
        try {
            type = request.apiVersion() == 0 ? ElectionType.PREFERRED : ElectionType.fromValue(data.electionType());
        } catch (IllegalArgumentException e) {
            return CompletableFuture.completedFuture(response.setErrorCode(Errors.INVALID_REQUEST.code()));
        }
        Map<String, List<Integer>> partitions = null;
        if (data.topicPartitions() != null) {
            partitions = new LinkedHashMap<>();
            for (TopicPartitions topic : data.topicPartitions()) {
                partitions
                        .computeIfAbsent(topic.topic(), t -> new java.util.ArrayList<>())
                        .addAll(topic.partitions());
            }
            if (partitions.isEmpty()) {
                return CompletableFuture.completedFuture(response);
            }
        }
        return controller.electLeaders(type, partitions).thenApply(results -> {
            Map<String, ReplicaElectionResult> byTopic = new LinkedHashMap<>();
            for (PartitionResultError r : results) {
                byTopic.computeIfAbsent(r.topic(), t -> {
                            ReplicaElectionResult topic = new ReplicaElectionResult().setTopic(t);
                            response.replicaElectionResults().add(topic);
                            return topic;
                        })
                        .partitionResult()
                        .add(new PartitionResult()
                                .setPartitionId(r.partitionId())
                                .setErrorCode(r.error().code())
                                .setErrorMessage(r.message()));
            }
            return response;
        });
    }
}
