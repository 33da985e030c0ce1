package io.varve.broker.controller;

import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.RequestDispatcher;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.protocol.InvalidFrameException;
import io.varve.broker.raft.RaftRequestDispatcher;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What the controller listener's socket server dispatches to: Raft requests to the Raft transport, from the moment the
 * listener is bound (the voters elect while the node starts), everything else to the controller's APIs once they are
 * installed; until then such a request closes its connection, and the client connects again.
 */
public final class ControllerListenerDispatcher implements RequestDispatcher {
    private final RequestDispatcher raft;
    private volatile RequestDispatcher controllerApis;

    public ControllerListenerDispatcher(RequestDispatcher raft) {
        this.raft = raft;
    }

    /** Starts answering the controller's own APIs. */
    public void install(RequestDispatcher apis) {
        this.controllerApis = apis;
    }

    @Override
    public CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection) {
        if (frame.remaining() < 2) {
            throw new InvalidFrameException("request of " + frame.remaining() + " bytes has no API key");
        }
        short apiKey = frame.getShort(frame.position());
        if (ApiKeys.hasId(apiKey) && RaftRequestDispatcher.servedApis().contains(ApiKeys.forId(apiKey))) {
            return raft.dispatch(frame, connection);
        }
        RequestDispatcher apis = controllerApis;
        if (apis == null) {
            return CompletableFuture.failedFuture(
                    new IllegalStateException("the controller is still starting: only Raft requests are served"));
        }
        return apis.dispatch(frame, connection);
    }

    @Override
    public void connectionClosed(ConnectionInfo connection) {
        RequestDispatcher apis = controllerApis;
        if (apis != null) {
            apis.connectionClosed(connection);
        }
    }
}
