package io.varve.broker.observe;

import io.varve.broker.controller.ControllerCalls;
import io.varve.http.view.ConsoleActions;
import io.varve.metadata.controller.CreateTopicRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;

/** The console's actions through the controller calls the Kafka handlers use (CreateTopics, DeleteTopics). */
public final class NodeActions implements ConsoleActions {
    private final ControllerCalls controller;
    private final boolean deleteTopicEnable;

    public NodeActions(ControllerCalls controller, boolean deleteTopicEnable) {
        this.controller = controller;
        this.deleteTopicEnable = deleteTopicEnable;
    }

    @Override
    public CompletableFuture<String> createTopic(String name, int partitions) {
        return controller
                .createTopics(List.of(new CreateTopicRequest(name, partitions, (short) -1, null, null)), false)
                .thenApply(results -> {
                    var r = results.get(0);
                    return r.error() == Errors.NONE ? null : message(r.error(), r.errorMessage());
                });
    }

    @Override
    public CompletableFuture<String> deleteTopic(String name) {
        if (!deleteTopicEnable) {
            return CompletableFuture.completedFuture(message(Errors.TOPIC_DELETION_DISABLED, null));
        }
        return controller.deleteTopics(List.of(name)).thenApply(errors -> {
            Errors e = errors.isEmpty() ? Errors.UNKNOWN_SERVER_ERROR : errors.get(0);
            return e == Errors.NONE ? null : message(e, null);
        });
    }

    private static String message(Errors error, String detail) {
        return error.name() + ": " + (detail == null || detail.isEmpty() ? error.message() : detail);
    }
}
