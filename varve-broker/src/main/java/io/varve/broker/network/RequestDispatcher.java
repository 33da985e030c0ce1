package io.varve.broker.network;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * What the network layer hands a request frame to. The future completes with a serialised response frame,
 * with {@code null} when the request gets no response, or exceptionally when the connection must be closed.
 */
@FunctionalInterface
public interface RequestDispatcher {
    CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection);

    /** The connection closed, from either end; called once, on its event loop. Most dispatchers need not know. */
    default void connectionClosed(ConnectionInfo connection) {}
}
