package io.varve.broker.api;

import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.DeleteTopicResult;
import io.varve.metadata.controller.QuorumController;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DeleteTopics by name (all versions) and by topic id (v6+). */
public final class DeleteTopicsHandler implements ApiHandler {
    private final QuorumController controller;
    private final boolean deleteTopicEnable;

    public DeleteTopicsHandler(QuorumController controller, boolean deleteTopicEnable) {
        this.controller = controller;
        this.deleteTopicEnable = deleteTopicEnable;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DeleteTopicsRequestData data = request.body();
        List<String> names = new ArrayList<>();
        List<Uuid> ids = new ArrayList<>();
        if (request.apiVersion() >= 6) {
            for (DeleteTopicState t : data.topics()) {
                if (t.name() != null) {
                    names.add(t.name());
                } else {
                    ids.add(t.topicId());
                }
            }
        } else {
            names.addAll(data.topicNames());
        }
        DeleteTopicsResponseData response = new DeleteTopicsResponseData();
        if (!deleteTopicEnable) {
            names.forEach(
                    n -> response.responses().add(result(n, Uuid.ZERO_UUID, Errors.TOPIC_DELETION_DISABLED, null)));
            ids.forEach(id -> response.responses().add(result(null, id, Errors.TOPIC_DELETION_DISABLED, null)));
            return CompletableFuture.completedFuture(response);
        }
        return controller.deleteTopics(names, ids).thenApply(results -> {
            for (DeleteTopicResult r : results) {
                response.responses().add(result(r.name(), r.topicId(), r.error(), r.errorMessage()));
            }
            return response;
        });
    }

    private static DeletableTopicResult result(String name, Uuid id, Errors error, String message) {
        return new DeletableTopicResult()
                .setName(name)
                .setTopicId(id == null ? Uuid.ZERO_UUID : id)
                .setErrorCode(error.code())
                .setErrorMessage(error == Errors.NONE ? null : message);
    }
}
