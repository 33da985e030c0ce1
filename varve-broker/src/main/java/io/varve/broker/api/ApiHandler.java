package io.varve.broker.api;

import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/** Handles one API. The future completes with the response, or with {@code null} when none is sent (acks=0). */
@FunctionalInterface
public interface ApiHandler {
    CompletableFuture<ApiMessage> handle(RequestContext request);
}
