package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.api.ApiRegistry;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.InvalidFrameException;
import io.varve.broker.protocol.PrincipalBytes;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.RequestParser;
import io.varve.security.Principal;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.apache.kafka.common.message.EnvelopeRequestData;
import org.apache.kafka.common.message.EnvelopeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;

/**
 * Envelope (KIP-590, controller side): a client's admin request that a broker forwarded. The inner request is read at
 * the client's version and answered by the same handler that answers it when sent here directly; the answer goes back
 * inside the Envelope's response, at the client's version and correlation id. Only the admin APIs a broker forwards
 * may travel in one; anything else, or an inner request that cannot be read, is INVALID_REQUEST.
 *
 * <p>The inner request is the client's: it carries the client's principal (the Envelope's {@code request_principal},
 * PRINCIPAL_DESERIALIZATION_FAILURE when it cannot be read) and address, and with an authorizer it is authorized as
 * that principal, as if the client had sent it here. Who may send an Envelope at all (CLUSTER_ACTION on the cluster,
 * an inter-broker principal) is the controller listener's authorization, before this handler.
 */
public final class EnvelopeHandler implements ApiHandler {
    /** The APIs brokers forward (Kafka's forwardable APIs that this controller serves). */
    public static final Set<ApiKeys> FORWARDED = Set.of(
            ApiKeys.CREATE_TOPICS,
            ApiKeys.DELETE_TOPICS,
            ApiKeys.CREATE_PARTITIONS,
            ApiKeys.INCREMENTAL_ALTER_CONFIGS,
            ApiKeys.ALTER_CONFIGS,
            ApiKeys.UPDATE_FEATURES,
            ApiKeys.ELECT_LEADERS,
            ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
            ApiKeys.LIST_PARTITION_REASSIGNMENTS,
            ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
            ApiKeys.CREATE_ACLS,
            ApiKeys.DELETE_ACLS,
            ApiKeys.ALTER_CLIENT_QUOTAS,
            ApiKeys.UNREGISTER_BROKER,
            ApiKeys.UNREGISTER_CONTROLLER,
            ApiKeys.DESCRIBE_QUORUM,
            ApiKeys.ADD_RAFT_VOTER,
            ApiKeys.REMOVE_RAFT_VOTER,
            ApiKeys.CREATE_DELEGATION_TOKEN,
            ApiKeys.RENEW_DELEGATION_TOKEN,
            ApiKeys.EXPIRE_DELEGATION_TOKEN);

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(EnvelopeHandler.class);

    private final ApiRegistry registry;
    /** How an inner request is authorized, given its handler; null: it goes straight to the handler. */
    private final Supplier<BiFunction<RequestContext, ApiHandler, CompletableFuture<ApiMessage>>> authorization;

    public EnvelopeHandler(ApiRegistry registry) {
        this(registry, () -> null);
    }

    public EnvelopeHandler(
            ApiRegistry registry,
            Supplier<BiFunction<RequestContext, ApiHandler, CompletableFuture<ApiMessage>>> authorization) {
        this.registry = registry;
        this.authorization = authorization;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext envelope) {
        EnvelopeRequestData data = envelope.body();
        RequestContext inner;
        ApiRegistry.Api api;
        try {
            RequestParser.Parsed parsed =
                    RequestParser.parseHeader(data.requestData().duplicate());
            api = registry.get(parsed.apiKey());
            if (!FORWARDED.contains(parsed.apiKey()) || api == null || !api.handles(parsed.apiVersion())) {
                return refused(parsed.apiKey() + " v" + parsed.apiVersion() + " is not forwarded to this controller");
            }
            AbstractRequest body = RequestParser.parseBody(parsed.apiKey(), parsed.apiVersion(), parsed.body());
            Principal principal;
            try {
                principal = PrincipalBytes.read(data.requestPrincipal());
            } catch (InvalidFrameException e) {
                return refused(Errors.PRINCIPAL_DESERIALIZATION_FAILURE, e.getMessage());
            }
            inner = new RequestContext(
                    parsed.header(),
                    parsed.apiKey(),
                    parsed.apiVersion(),
                    body,
                    envelope.listenerName(),
                    clientAddress(data.clientHostAddress()),
                    envelope.receivedNanos(),
                    principal);
        } catch (InvalidFrameException e) {
            return refused(e.getMessage());
        }
        CompletableFuture<ApiMessage> answered;
        try {
            var authorize = authorization.get();
            answered = authorize == null ? api.handler().handle(inner) : authorize.apply(inner, api.handler());
        } catch (RuntimeException e) {
            answered = CompletableFuture.failedFuture(e);
        }
        return answered.exceptionally(error -> inner.errorResponse(
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error))
                .thenApply(response -> new EnvelopeResponseData()
                        .setErrorCode(Errors.NONE.code())
                        .setResponseData(ClientFrames.responseBytes(
                                inner.apiKey(), inner.apiVersion(), inner.correlationId(), response)));
    }

    private static CompletableFuture<ApiMessage> refused(String why) {
        return refused(Errors.INVALID_REQUEST, why);
    }

    private static CompletableFuture<ApiMessage> refused(Errors error, String why) {
        LOG.warn("Refusing an Envelope: {}", why); // the Envelope's response has no message field
        return CompletableFuture.completedFuture(
                new EnvelopeResponseData().setErrorCode(error.code()).setResponseData(null));
    }

    private static InetSocketAddress clientAddress(byte[] address) {
        try {
            return address == null || address.length == 0
                    ? null
                    : new InetSocketAddress(InetAddress.getByAddress(address), 0);
        } catch (UnknownHostException e) {
            return null; // not 4 or 16 bytes: the address is only informative
        }
    }
}
