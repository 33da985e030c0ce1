package io.varve.broker.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/** A broker's handler for an admin write: the active controller answers it (KIP-590 forwarding). */
public final class ForwardingHandler implements ApiHandler {
    private final ControllerChannel channel;

    public ForwardingHandler(ControllerChannel channel) {
        this.channel = channel;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        return channel.forward(request);
    }
}
