package io.varve.broker.api;

import io.varve.broker.network.ConnectionInfo;
import io.varve.broker.network.RequestDispatcher;
import io.varve.broker.network.ResponseFrame;
import io.varve.broker.observe.RequestTimer;
import io.varve.broker.protocol.InvalidFrameException;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.RequestParser;
import io.varve.broker.protocol.ResponseWriter;
import io.varve.http.metrics.RequestMetrics;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Parses a frame, checks the API and version, runs the handler on the request executor and serialises the answer.
 * A request for an API or version we do not handle closes the connection, as Kafka does; ApiVersions alone
 * answers a too-new version with UNSUPPORTED_VERSION and our ranges (KIP-511).
 */
public final class KafkaRequestDispatcher implements RequestDispatcher {
    private static final Logger log = LoggerFactory.getLogger(KafkaRequestDispatcher.class);

    private final ApiRegistry registry;
    private final ApiVersionsHandler apiVersions;
    private final Executor requestExecutor;
    /** Where request times and sizes go; null records nothing (the controller listener). */
    private final RequestMetrics metrics;

    public KafkaRequestDispatcher(ApiRegistry registry, ApiVersionsHandler apiVersions, Executor requestExecutor) {
        this(registry, apiVersions, requestExecutor, null);
    }

    public KafkaRequestDispatcher(
            ApiRegistry registry, ApiVersionsHandler apiVersions, Executor requestExecutor, RequestMetrics metrics) {
        this.registry = registry;
        this.apiVersions = apiVersions;
        this.requestExecutor = requestExecutor;
        this.metrics = metrics;
    }

    @Override
    public CompletableFuture<ResponseFrame> dispatch(ByteBuffer frame, ConnectionInfo connection) {
        int frameBytes = frame.remaining();
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
        RequestContext request = new RequestContext(
                parsed.header(),
                apiKey,
                version,
                body,
                connection.listenerName(),
                connection.remoteAddress(),
                System.nanoTime());
        RequestTimer timer = RequestTimer.of(metrics, apiKey.id, version, frameBytes, request.receivedNanos());
        boolean[] failed = {false};
        CompletableFuture<ResponseFrame> answer = CompletableFuture.supplyAsync(
                        () -> {
                            if (timer == null) {
                                return api.handler().handle(request);
                            }
                            timer.handlerStarted(System.nanoTime());
                            try {
                                return api.handler().handle(request);
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
                .thenApply(response ->
                        response == null ? null : ResponseWriter.write(apiKey, version, correlationId, response));
        return timer == null
                ? answer
                : answer.thenApply(out -> {
                    timer.answered(out, failed[0], System.nanoTime());
                    return out;
                });
    }
}
