package io.varve.broker.api;

import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.RequestDispatcher;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.observe.RequestTimer;
import io.varve.broker.protocol.ErrorResponses;
import io.varve.broker.protocol.InvalidFrameException;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.RequestParser;
import io.varve.broker.protocol.ResponseWriter;
import io.varve.broker.protocol.ThrottleTimes;
import io.varve.broker.quota.RequestQuotas;
import io.varve.broker.security.AuthorizationHook;
import io.varve.broker.security.ConnectionAuthentication;
import io.varve.broker.security.SaslAuthenticator;
import io.varve.http.metrics.RequestMetrics;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses a frame, checks the API and version, runs the handler on the request executor and serialises the answer.
 * A request for an API or version we do not handle closes the connection, as Kafka does; ApiVersions alone
 * answers a too-new version with UNSUPPORTED_VERSION and our ranges (KIP-511).
 *
 * <p>On a SASL listener a connection that has not authenticated yet gets ApiVersions and its SASL exchange
 * ({@link SaslAuthenticator}) and nothing else: any other request is answered with ILLEGAL_SASL_STATE and the
 * connection closed. Every handler sees the connection's principal in its {@link RequestContext}; with an authorizer
 * every request passes the one {@link AuthorizationHook} on its way to the handler.
 */
public final class KafkaRequestDispatcher implements RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(KafkaRequestDispatcher.class);

    private final ApiRegistry registry;
    private final ApiVersionsHandler apiVersions;
    private final Executor requestExecutor;
    /** Where request times and sizes go; null records nothing (the controller listener). */
    private final RequestMetrics metrics;
    /** Null when no listener speaks SASL. */
    private final SaslAuthenticator sasl;
    /** Null without {@code authorizer.class.name}: every request goes straight to its handler. */
    private final AuthorizationHook authorization;
    /** Null where clients are not throttled (the controller listener). */
    private final RequestQuotas quotas;

    public KafkaRequestDispatcher(ApiRegistry registry, ApiVersionsHandler apiVersions, Executor requestExecutor) {
        this(registry, apiVersions, requestExecutor, null);
    }

    public KafkaRequestDispatcher(
            ApiRegistry registry, ApiVersionsHandler apiVersions, Executor requestExecutor, RequestMetrics metrics) {
        this(registry, apiVersions, requestExecutor, metrics, null, null);
    }

    public KafkaRequestDispatcher(
            ApiRegistry registry,
            ApiVersionsHandler apiVersions,
            Executor requestExecutor,
            RequestMetrics metrics,
            SaslAuthenticator sasl,
            AuthorizationHook authorization) {
        this(registry, apiVersions, requestExecutor, metrics, sasl, authorization, null);
    }

    public KafkaRequestDispatcher(
            ApiRegistry registry,
            ApiVersionsHandler apiVersions,
            Executor requestExecutor,
            RequestMetrics metrics,
            SaslAuthenticator sasl,
            AuthorizationHook authorization,
            RequestQuotas quotas) {
        this.quotas = quotas;
        this.registry = registry;
        this.apiVersions = apiVersions;
        this.requestExecutor = requestExecutor;
        this.metrics = metrics;
        this.sasl = sasl;
        this.authorization = authorization;
    }

    @Override
    public CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection) {
        int frameBytes = frame.remaining();
        ConnectionAuthentication auth = connection.authentication();
        if (auth.saslPending() && SaslAuthenticator.expectsRawToken(auth)) {
            byte[] token = new byte[frame.remaining()];
            frame.get(token);
            return answer(
                    sasl.rawToken(token, connection.listenerName(), auth, connection.remoteAddress()),
                    null,
                    (short) 0,
                    0);
        }
        RequestParser.Parsed parsed = RequestParser.parseHeader(frame);
        ApiKeys apiKey = parsed.apiKey();
        short version = parsed.apiVersion();
        int correlationId = parsed.header().correlationId();
        ApiRegistry.Api api = registry.get(apiKey);
        if (api == null) {
            throw new InvalidFrameException("unsupported API " + apiKey + " from client "
                    + parsed.header().clientId());
        }
        if (!api.handles(version)) {
            if (apiKey == ApiKeys.API_VERSIONS && version > api.maxVersion()) {
                ApiVersionsResponseData answer = apiVersions.response(Errors.UNSUPPORTED_VERSION);
                return CompletableFuture.completedFuture(
                        ResponseWriter.write(apiKey, (short) 0, correlationId, answer));
            }
            throw new InvalidFrameException("unsupported " + apiKey + " version " + version + " from client "
                    + parsed.header().clientId() + " (supported " + api.minVersion() + ".." + api.maxVersion() + ")");
        }
        AbstractRequest body = RequestParser.parseBody(apiKey, version, parsed.body());
        if (auth.saslPending() && apiKey != ApiKeys.API_VERSIONS) {
            return saslExchange(apiKey, version, correlationId, body, connection);
        }
        if (auth.protocol().sasl()) {
            // KIP-368: a new exchange on an authenticated connection, or the end of a session not renewed in time
            if (apiKey == ApiKeys.SASL_HANDSHAKE || (apiKey == ApiKeys.SASL_AUTHENTICATE && auth.reauthenticating())) {
                return saslExchange(apiKey, version, correlationId, body, connection);
            }
            if (auth.sessionExpired(System.nanoTime())) {
                SaslAuthenticator.logExpiredSession(auth, connection.listenerName(), connection.remoteAddress());
                return CompletableFuture.completedFuture(new ResponseFrame(List.of()).thenClose());
            }
        }
        RequestContext request = new RequestContext(
                parsed.header(),
                apiKey,
                version,
                body,
                connection.listenerName(),
                connection.remoteAddress(),
                System.nanoTime(),
                auth.principal());
        ApiHandler authorized = authorization == null ? api.handler() : r -> authorization.handle(r, api.handler());
        ApiHandler handler = quotas == null ? authorized : r -> quotas.handle(r, authorized, frameBytes);
        RequestTimer timer = RequestTimer.of(metrics, apiKey.id, version, frameBytes, request.receivedNanos());
        boolean[] failed = {false};
        CompletableFuture<ResponseFrame> answer = CompletableFuture.supplyAsync(
                        () -> {
                            if (timer == null) {
                                return handler.handle(request);
                            }
                            timer.handlerStarted(System.nanoTime());
                            try {
                                return handler.handle(request);
                            } finally {
                                timer.handlerReturned(System.nanoTime());
                            }
                        },
                        requestExecutor)
                .thenCompose(f -> f)
                .exceptionally(e -> {
                    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                    if (cause instanceof DroppedResponseFault.DropConnection) {
                        throw new CompletionException(cause);
                    }
                    log.error("{} v{} from client {} failed", apiKey, version, request.clientId(), cause);
                    failed[0] = true;
                    return request.errorResponse(cause);
                })
                .thenApply(response -> response == null ? null : throttled(response, apiKey, version, correlationId));
        return timer == null ? answer : answer.thenApply(out -> timer.answered(out, failed[0], System.nanoTime()));
    }

    /** The response's frame; a response with a throttle time mutes its connection for as long (Kafka's KIP-219). */
    private static ResponseFrame throttled(ApiMessage response, ApiKeys apiKey, short version, int correlationId) {
        ResponseFrame frame = ResponseWriter.write(apiKey, version, correlationId, response);
        int throttleMs = ThrottleTimes.get(response);
        return throttleMs > 0 ? frame.thenMuteFor(throttleMs) : frame;
    }

    /** A request of a SASL connection that has not authenticated yet: its exchange, or ILLEGAL_SASL_STATE. */
    private CompletableFuture<ResponseFrame> saslExchange(
            ApiKeys apiKey, short version, int correlationId, AbstractRequest body, ConnectionInfo connection) {
        ConnectionAuthentication auth = connection.authentication();
        String listener = connection.listenerName();
        if (apiKey == ApiKeys.SASL_HANDSHAKE) {
            SaslHandshakeRequestData handshake = (SaslHandshakeRequestData) body.data();
            return answer(
                    sasl.handshake(handshake, version, listener, auth, connection.remoteAddress()),
                    apiKey,
                    version,
                    correlationId);
        }
        if (apiKey == ApiKeys.SASL_AUTHENTICATE) {
            SaslAuthenticateRequestData token = (SaslAuthenticateRequestData) body.data();
            // the request threads, not the network thread: SCRAM's HMACs are cheap but not free
            return CompletableFuture.supplyAsync(
                            () -> sasl.authenticate(token, version, listener, auth, connection.remoteAddress()),
                            requestExecutor)
                    .thenCompose(a -> answer(a, apiKey, version, correlationId));
        }
        SaslAuthenticator.logIllegalState(apiKey + " request", listener, connection.remoteAddress());
        ApiMessage refused = ErrorResponses.of(
                body,
                new IllegalSaslStateException(
                        "Unexpected " + apiKey + " request before SASL authentication completed"));
        return CompletableFuture.completedFuture(
                ResponseWriter.write(apiKey, version, correlationId, refused).thenClose());
    }

    /** Serialises a SASL answer, after its failure delay; a raw token (v0 handshake) goes as a bare frame. */
    private static CompletableFuture<ResponseFrame> answer(
            SaslAuthenticator.Answer answer, ApiKeys apiKey, short version, int correlationId) {
        ResponseFrame frame;
        if (answer.response() != null) {
            frame = ResponseWriter.write(apiKey, version, correlationId, answer.response());
        } else if (answer.rawToken() != null) {
            ByteBuffer raw = ByteBuffer.allocate(4 + answer.rawToken().length);
            raw.putInt(answer.rawToken().length).put(answer.rawToken()).flip();
            frame = ResponseFrame.of(raw);
        } else {
            frame = new ResponseFrame(List.of());
        }
        ResponseFrame toSend = answer.close() ? frame.thenClose() : frame;
        if (answer.delayMs() <= 0) {
            return CompletableFuture.completedFuture(toSend);
        }
        return CompletableFuture.supplyAsync(
                () -> toSend, CompletableFuture.delayedExecutor(answer.delayMs(), TimeUnit.MILLISECONDS));
    }
}
