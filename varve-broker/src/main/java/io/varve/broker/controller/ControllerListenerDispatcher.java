package io.varve.broker.controller;

import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.RequestDispatcher;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.protocol.InvalidFrameException;
import io.varve.broker.raft.RaftRequestDispatcher;
import io.varve.broker.security.ConnectionAuthentication;
import io.varve.broker.security.RaftAuthorization;
import io.varve.broker.security.SaslAuthenticator;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * What the controller listener's socket server dispatches to: Raft requests to the Raft transport, from the moment the
 * listener is bound (the voters elect while the node starts), everything else to the controller's APIs once they are
 * installed; until then such a request closes its connection, and the client connects again.
 *
 * <p>On a SASL controller listener a connection logs in first: until it has, its SaslHandshake / SaslAuthenticate go
 * to {@code sasl}, ApiVersions to the controller's APIs, and anything else (Raft's requests too) is refused and the
 * connection closed; a session past its lifetime (KIP-368) is closed at its next request. With an authorizer, a Raft
 * request whose principal lacks CLUSTER_ACTION (ALTER, DESCRIBE: {@link RaftAuthorization}) is answered with
 * CLUSTER_AUTHORIZATION_FAILED instead of reaching the quorum.
 */
public final class ControllerListenerDispatcher implements RequestDispatcher {
    private final RequestDispatcher raft;
    /** Null when no controller listener speaks SASL. */
    private final RequestDispatcher sasl;

    private volatile RequestDispatcher controllerApis;
    /** Null without an authorizer: who may make which Raft request. */
    private volatile RaftAuthorization raftAuthorization;

    public ControllerListenerDispatcher(RequestDispatcher raft) {
        this(raft, null);
    }

    public ControllerListenerDispatcher(RequestDispatcher raft, RequestDispatcher sasl) {
        this.raft = raft;
        this.sasl = sasl;
    }

    /** With an authorizer: Raft requests need CLUSTER_ACTION (and the like) from here on. */
    public void authorizeRaftWith(RaftAuthorization authorization) {
        this.raftAuthorization = authorization;
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
        ConnectionAuthentication auth = connection.authentication();
        if (sasl != null && auth.protocol().sasl()) {
            boolean saslApi = apiKey == ApiKeys.SASL_HANDSHAKE.id || apiKey == ApiKeys.SASL_AUTHENTICATE.id;
            if (saslApi || (auth.saslPending() && apiKey != ApiKeys.API_VERSIONS.id)) {
                return sasl.dispatch(frame, connection);
            }
            if (auth.sessionExpired(System.nanoTime())) {
                SaslAuthenticator.logExpiredSession(auth, connection.listenerName(), connection.remoteAddress());
                return CompletableFuture.completedFuture(new ResponseFrame(List.of()).thenClose());
            }
        }
        if (ApiKeys.hasId(apiKey) && RaftRequestDispatcher.servedApis().contains(ApiKeys.forId(apiKey))) {
            RaftAuthorization authorization = raftAuthorization;
            ResponseFrame refused = authorization == null ? null : authorization.refusal(frame, connection);
            return refused != null ? CompletableFuture.completedFuture(refused) : raft.dispatch(frame, connection);
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
