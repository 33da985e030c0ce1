package io.varve.broker.api;

import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.protocol.ApiMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TEST-ONLY fault injection, off unless {@code varve.test.produce.drop.response.every} is set: every n-th request
 * of the wrapped API is handled (the append happens) and then its response is dropped and the connection closed,
 * as if the network lost it. Idempotent producers must then retry without writing a duplicate.
 */
public final class DroppedResponseFault implements ApiHandler {
    private static final Logger log = LoggerFactory.getLogger(DroppedResponseFault.class);

    /** Completes a handler's future to ask the network layer to close the connection without a response. */
    public static final class DropConnection extends RuntimeException {
        DropConnection(String message) {
            super(message, null, false, false);
        }
    }

    private final ApiHandler delegate;
    private final int every;
    private final AtomicLong requests = new AtomicLong();

    private DroppedResponseFault(ApiHandler delegate, int every) {
        this.delegate = delegate;
        this.every = every;
    }

    /** {@code handler} itself when {@code every} is 0 (the default), else the faulty wrapper. */
    public static ApiHandler wrap(ApiHandler handler, int every) {
        if (every <= 0) {
            return handler;
        }
        log.warn("TEST FAULT INJECTION ON: every {}th Produce response is dropped and its connection closed", every);
        return new DroppedResponseFault(handler, every);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        CompletableFuture<ApiMessage> response = delegate.handle(request);
        if (requests.incrementAndGet() % every != 0) {
            return response;
        }
        return response.thenCompose(
                r -> CompletableFuture.failedFuture(new DropConnection("test fault: dropped the response to "
                        + request.apiKey() + " correlation id " + request.correlationId())));
    }
}
