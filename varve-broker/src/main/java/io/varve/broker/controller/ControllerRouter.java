package io.varve.broker.controller;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.network.client.NodeClient;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.message.EnvelopeRequestData;
import org.apache.kafka.common.message.EnvelopeResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ControllerChannel}: finds the active controller (the metadata log's Raft leader) for every attempt. When
 * that is this node's own controller the request goes to its handler in this process, with no bytes in between;
 * otherwise over the controller listener to the leader's address in {@code controller.quorum.voters}: a client's
 * request inside an Envelope (KIP-590: it keeps the client's version, address and principal, so the controller
 * answers, and authorizes, exactly what the client asked), this broker's own requests directly.
 *
 * <p>An attempt is repeated, after {@code retryBackoffMs}, while no leader is known, when its connection fails or
 * drops, when the answer says NOT_CONTROLLER (leadership moved), and for the broker's own requests when it times out
 * ({@code attemptTimeoutMs}: a heartbeat must reach a new leader within the session); never past the deadline
 * {@code requestTimeoutMs} after the call. A forwarded request waits for its answer up to the deadline. Every other answer, errors included, is the
 * controller's and goes back as it is. Attempts are sequential: one request never has two in flight.
 */
public final class ControllerRouter implements ControllerChannel, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControllerRouter.class);
    private static final short ENVELOPE_VERSION = 0;

    /** How long a call may take in all, each attempt, and the pause between attempts. */
    public record Settings(long requestTimeoutMs, long attemptTimeoutMs, long retryBackoffMs) {
        public Settings {
            if (requestTimeoutMs <= 0 || attemptTimeoutMs <= 0 || retryBackoffMs <= 0) {
                throw new IllegalArgumentException("every timeout must be > 0: " + this);
            }
        }

        /** Kafka's {@code request.timeout.ms} (30 s), {@code controller.quorum.request.timeout.ms} (2 s). */
        public static Settings defaults() {
            return new Settings(30_000, 2_000, 100);
        }
    }

    /** Where this node's own controller is, when it has one: its handlers, and whether it leads now. */
    public interface LocalController {
        ApiRegistry apis();

        boolean isActive();
    }

    private final int nodeId;
    private final LocalController local;
    private final IntSupplier leaderId;
    private final Function<Integer, InetSocketAddress> controllerEndpoints;
    private final NodeClient client;
    private final ScheduledExecutorService timer;
    private final LongSupplier clockMs;
    private final Settings settings;

    /**
     * @param local               null on a node that is not a controller
     * @param leaderId            the metadata log's leader as this node knows it, -1 when none is known
     * @param controllerEndpoints a controller's address on its controller listener, null if unknown
     */
    public ControllerRouter(
            int nodeId,
            LocalController local,
            IntSupplier leaderId,
            Function<Integer, InetSocketAddress> controllerEndpoints,
            ScheduledExecutorService timer,
            LongSupplier clockMs,
            Settings settings,
            int maxFrameBytes) {
        this(nodeId, local, leaderId, controllerEndpoints, timer, clockMs, settings, maxFrameBytes, null);
    }

    /** As above, with TLS and / or SASL when {@code security} is not null (the controller listener asks). */
    public ControllerRouter(
            int nodeId,
            LocalController local,
            IntSupplier leaderId,
            Function<Integer, InetSocketAddress> controllerEndpoints,
            ScheduledExecutorService timer,
            LongSupplier clockMs,
            Settings settings,
            int maxFrameBytes,
            io.varve.broker.network.client.ClientSecurity security) {
        this.nodeId = nodeId;
        this.local = local;
        this.leaderId = Objects.requireNonNull(leaderId, "leaderId");
        this.controllerEndpoints = Objects.requireNonNull(controllerEndpoints, "controllerEndpoints");
        this.timer = Objects.requireNonNull(timer, "timer");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.settings = Objects.requireNonNull(settings, "settings");
        this.client = new NodeClient(
                "varve-broker-" + nodeId,
                "varve-controller-client",
                maxFrameBytes,
                64,
                settings.attemptTimeoutMs(),
                security);
    }

    @Override
    public CompletableFuture<ApiMessage> forward(RequestContext request) {
        ApiKeys api = request.apiKey();
        short version = request.apiVersion();
        CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
        long deadlineMs = clockMs.getAsLong() + settings.requestTimeoutMs();
        attempt(api.name, deadlineMs, answer, () -> {
            if (localActive()) {
                return local.apis().get(api).handler().handle(request).thenApply(r -> checked(api, version, r));
            }
            InetSocketAddress address = activeAddress();
            if (address == null) {
                return null;
            }
            EnvelopeRequestData envelope = new EnvelopeRequestData()
                    .setRequestData(ClientFrames.request(
                            api, version, request.correlationId(), request.clientId(), request.data()))
                    .setRequestPrincipal(io.varve.broker.protocol.PrincipalBytes.write(
                            request.principal() == null ? io.varve.security.Principal.ANONYMOUS : request.principal()))
                    .setClientHostAddress(
                            request.clientAddress() == null
                                            || request.clientAddress().getAddress() == null
                                    ? new byte[0]
                                    : request.clientAddress().getAddress().getAddress());
            // A client's write waits for its answer until the deadline: repeating one that timed out could answer
            // TOPIC_ALREADY_EXISTS for the topic the first attempt created.
            long leftMs = Math.max(1, deadlineMs - clockMs.getAsLong());
            return client.send(address, ApiKeys.ENVELOPE, ENVELOPE_VERSION, envelope, leftMs)
                    .thenApply(response -> unwrap(api, version, (EnvelopeResponseData) response.body()));
        });
        return answer.exceptionally(error -> {
            Throwable cause = unwrap(error);
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException) {
                return request.errorResponse(cause);
            }
            throw new CompletionException(cause);
        });
    }

    @Override
    public CompletableFuture<ApiMessage> send(ApiKeys api, ApiMessage request) {
        short version = api.latestVersion();
        CompletableFuture<ApiMessage> answer = new CompletableFuture<>();
        attempt(api.name, clockMs.getAsLong() + settings.requestTimeoutMs(), answer, () -> {
            if (localActive()) {
                RequestContext context = new RequestContext(
                        new RequestHeaderData()
                                .setRequestApiKey(api.id)
                                .setRequestApiVersion(version)
                                .setClientId("varve-broker-" + nodeId),
                        api,
                        version,
                        ClientFrames.asRequest(api, version, request),
                        "local",
                        null,
                        System.nanoTime());
                return local.apis().get(api).handler().handle(context).thenApply(r -> checked(api, version, r));
            }
            InetSocketAddress address = activeAddress();
            if (address == null) {
                return null;
            }
            return client.send(address, api, version, request, settings.attemptTimeoutMs())
                    .thenApply(response -> {
                        if (response.errors().contains(Errors.NOT_CONTROLLER)) {
                            throw new NotControllerException(api + " reached a controller that is not active");
                        }
                        return response.body();
                    });
        });
        return answer;
    }

    private boolean localActive() {
        return local != null && local.isActive();
    }

    /** The leader's controller address, or null when no leader is known (or it is this node, not active yet). */
    private InetSocketAddress activeAddress() {
        int leader = leaderId.getAsInt();
        if (leader < 0 || leader == nodeId) {
            return null;
        }
        return controllerEndpoints.apply(leader);
    }

    private static ApiMessage checked(ApiKeys api, short version, ApiMessage response) {
        if (ClientFrames.errors(api, version, response).contains(Errors.NOT_CONTROLLER)) {
            throw new NotControllerException(api + " was answered by a controller that is no longer active");
        }
        return response;
    }

    private static ApiMessage unwrap(ApiKeys api, short version, EnvelopeResponseData envelope) {
        Errors error = Errors.forCode(envelope.errorCode());
        if (error != Errors.NONE) {
            throw error.exception(api + " in an Envelope: " + error.message());
        }
        ByteBuffer inner = envelope.responseData();
        ClientFrames.Response response = ClientFrames.response(api, version, inner);
        if (response.errors().contains(Errors.NOT_CONTROLLER)) {
            throw new NotControllerException(api + " was answered by a controller that is no longer active");
        }
        return response.body();
    }

    /**
     * Runs attempts until one answers or the deadline passes. {@code attempt} returns null when it cannot be made now
     * (no leader known), or the attempt's future.
     */
    private void attempt(
            String what,
            long deadlineMs,
            CompletableFuture<ApiMessage> answer,
            java.util.function.Supplier<CompletableFuture<ApiMessage>> attempt) {
        CompletableFuture<ApiMessage> attempted;
        try {
            attempted = attempt.get();
        } catch (RuntimeException e) {
            attempted = CompletableFuture.failedFuture(e);
        }
        if (attempted == null) {
            retryLater(what, deadlineMs, answer, attempt, "no active controller is known");
            return;
        }
        attempted.whenComplete((response, error) -> {
            if (error == null) {
                answer.complete(response);
                return;
            }
            Throwable cause = unwrap(error);
            if (retriable(cause)) {
                retryLater(what, deadlineMs, answer, attempt, cause.toString());
            } else {
                answer.completeExceptionally(cause);
            }
        });
    }

    private void retryLater(
            String what,
            long deadlineMs,
            CompletableFuture<ApiMessage> answer,
            java.util.function.Supplier<CompletableFuture<ApiMessage>> attempt,
            String why) {
        long nowMs = clockMs.getAsLong();
        if (nowMs + settings.retryBackoffMs() > deadlineMs) {
            answer.completeExceptionally(new org.apache.kafka.common.errors.TimeoutException(
                    what + " got no answer from the active controller within " + settings.requestTimeoutMs()
                            + " ms (last: " + why + ")"));
            return;
        }
        LOG.debug("{} to the controller again in {} ms: {}", what, settings.retryBackoffMs(), why);
        try {
            timer.schedule(
                    () -> attempt(what, deadlineMs, answer, attempt), settings.retryBackoffMs(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            answer.completeExceptionally(new NotControllerException("the broker is shutting down"));
        }
    }

    private static boolean retriable(Throwable cause) {
        return cause instanceof NotControllerException
                || cause instanceof NodeClient.DisconnectedException
                || cause instanceof TimeoutException;
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** Closes the connections to controllers; calls still waiting fail. */
    @Override
    public void close() {
        client.close();
    }
}
