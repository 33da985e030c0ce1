package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.CreatePartitionsRequest;
import io.varve.metadata.controller.QuorumController;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;

/** CreatePartitions: raises topics' partition counts through the controller, with manual assignments and validateOnly. */
public final class CreatePartitionsHandler implements ApiHandler {
    private final QuorumController controller;

    public CreatePartitionsHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        CreatePartitionsRequestData data = request.body();
        List<CreatePartitionsRequest> requests = new ArrayList<>(data.topics().size());
        for (CreatePartitionsTopic topic : data.topics()) {
            List<List<Integer>> assignments = null;
            if (topic.assignments() != null) {
                assignments = new ArrayList<>(topic.assignments().size());
                for (CreatePartitionsAssignment assignment : topic.assignments()) {
                    assignments.add(assignment.brokerIds());
                }
            }
            requests.add(new CreatePartitionsRequest(topic.name(), topic.count(), assignments));
        }
        CreatePartitionsResponseData response = new CreatePartitionsResponseData();
        if (requests.isEmpty()) {
            return CompletableFuture.completedFuture(response);
        }
        return controller.createPartitions(requests, data.validateOnly()).thenApply(results -> {
            results.forEach(r -> response.results()
                    .add(new CreatePartitionsTopicResult()
                            .setName(r.name())
                            .setErrorCode(r.error().code())
                            .setErrorMessage(r.message())));
            return response;
        });
    }
}
