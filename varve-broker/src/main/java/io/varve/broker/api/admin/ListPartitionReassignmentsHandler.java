package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.replication.OngoingReassignment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** ListPartitionReassignments: the reassignments in progress (all, or of the listed partitions). */
public final class ListPartitionReassignmentsHandler implements ApiHandler {
    private final QuorumController controller;

    public ListPartitionReassignmentsHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ListPartitionReassignmentsRequestData data = request.body();
        Map<String, List<Integer>> partitions = null;
        if (data.topics() != null) {
            partitions = new LinkedHashMap<>();
            for (ListPartitionReassignmentsTopics topic : data.topics()) {
                partitions.computeIfAbsent(topic.name(), t -> new ArrayList<>()).addAll(topic.partitionIndexes());
            }
        }
        return controller.listPartitionReassignments(partitions).thenApply(ongoing -> {
            ListPartitionReassignmentsResponseData response =
                    new ListPartitionReassignmentsResponseData().setErrorCode(Errors.NONE.code());
            Map<String, OngoingTopicReassignment> byTopic = new LinkedHashMap<>();
            for (OngoingReassignment r : ongoing) {
                byTopic.computeIfAbsent(r.topic(), name -> {
                            OngoingTopicReassignment topic = new OngoingTopicReassignment().setName(name);
                            response.topics().add(topic);
                            return topic;
                        })
                        .partitions()
                        .add(new OngoingPartitionReassignment()
                                .setPartitionIndex(r.partitionId())
                                .setReplicas(new ArrayList<>(r.replicas()))
                                .setAddingReplicas(new ArrayList<>(r.addingReplicas()))
                                .setRemovingReplicas(new ArrayList<>(r.removingReplicas())));
            }
            return response;
        });
    }
}
