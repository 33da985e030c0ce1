package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.replication.PartitionReassignment;
import io.varve.metadata.controller.replication.PartitionResultError;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AlterPartitionReassignments: starts, replaces or (null replicas) cancels reassignments through the
 * controller; v1's AllowReplicationFactorChange=false refuses targets of another size.
 */
public final class AlterPartitionReassignmentsHandler implements ApiHandler {
    private final QuorumController controller;

    public AlterPartitionReassignmentsHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        AlterPartitionReassignmentsRequestData data = request.body();
        boolean allowRfChange = request.apiVersion() < 1 || data.allowReplicationFactorChange();
        List<PartitionReassignment> reassignments = new ArrayList<>();
        for (ReassignableTopic topic : data.topics()) {
            for (ReassignablePartition partition : topic.partitions()) {
                reassignments.add(
                        new PartitionReassignment(topic.name(), partition.partitionIndex(), partition.replicas()));
            }
        }
        AlterPartitionReassignmentsResponseData response = new AlterPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setAllowReplicationFactorChange(allowRfChange);
        if (reassignments.isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        return controller
                .alterPartitionReassignments(reassignments, allowRfChange)
                .thenApply(results -> {
                    Map<String, ReassignableTopicResponse> byTopic = new LinkedHashMap<>();
                    for (PartitionResultError r : results) {
                        byTopic.computeIfAbsent(r.topic(), name -> {
                                    ReassignableTopicResponse topic = new ReassignableTopicResponse().setName(name);
                                    response.responses().add(topic);
                                    return topic;
                                })
                                .partitions()
                                .add(new ReassignablePartitionResponse()
                                        .setPartitionIndex(r.partitionId())
                                        .setErrorCode(r.error().code())
                                        .setErrorMessage(r.message()));
                    }
                    return response;
                });
    }
}
