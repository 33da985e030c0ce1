package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.UnregisterBrokerRequestData;
import org.apache.kafka.common.message.UnregisterBrokerResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** UnregisterBroker (controller side): moves leaderships off the broker and removes its registration. */
public final class UnregisterBrokerHandler implements ApiHandler {
    private final QuorumController controller;

    public UnregisterBrokerHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        UnregisterBrokerRequestData data = request.body();
        return controller.unregisterBroker(data.brokerId()).thenApply(reply -> new UnregisterBrokerResponseData()
                .setErrorCode(reply.error().code())
                .setErrorMessage(reply.error() == Errors.NONE ? null : reply.message()));
    }
}
