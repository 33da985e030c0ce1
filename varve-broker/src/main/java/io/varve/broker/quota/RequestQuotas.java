package io.varve.broker.quota;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.protocol.ThrottleTimes;
import io.varve.http.metrics.ClientQuotaSource;
import io.varve.metadata.controller.quota.ClientQuotaKeys;
import io.varve.metadata.image.MetadataImage;
import io.varve.security.quota.QuotaManager;
import io.varve.security.quota.QuotaResolver;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.ThrottlingQuotaExceededException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * Client quotas around every client request, as Kafka applies them:
 *
 * <ul>
 *   <li>{@code producer_byte_rate}: a Produce request's size is recorded; the data is appended all the same and the
 *       response carries the throttle time it earned.
 *   <li>{@code consumer_byte_rate}: a consumer's Fetch is capped to what the quota's windows allow, its response's
 *       record bytes are recorded, and a response that earns a throttle is taken back and answered empty (the records
 *       are fetched again once the throttle is over). Followers' fetches are not throttled.
 *   <li>{@code request_percentage}: the request thread's time in the handler, in percent of one thread, for every API
 *       but ApiVersions and the SASL exchange.
 *   <li>{@code controller_mutation_rate}: the partitions CreateTopics, CreatePartitions and DeleteTopics create or
 *       delete ({@link ControllerMutations}). A request that arrives while the quota is exceeded is answered
 *       THROTTLING_QUOTA_EXCEEDED for every topic (CreateTopics v6+, CreatePartitions v3+, DeleteTopics v5+; older
 *       versions are throttled instead); one that arrives within it is forwarded whole and counted, and may take the
 *       client over. Kafka decides topic by topic inside one request; Varve, which forwards the request as it came,
 *       decides for the request.
 * </ul>
 *
 * The response carries the larger throttle time; the connection is then muted for it (the dispatcher reads it back
 * with {@link ThrottleTimes}). Quotas resolve by the connection's principal name and the request's client id.
 *
 * <p>As a {@link ClientQuotaSource} it reports, per quota entity, the rates the managers measure and the mean of the
 * throttles they handed out: the request path records nothing beyond what the quotas need.
 */
public final class RequestQuotas implements ClientQuotaSource {
    private final QuotaResolver resolver;
    private final QuotaManager produce;
    private final QuotaManager fetch;
    private final QuotaManager requestTime;
    private final QuotaManager mutations;
    private final ControllerMutations mutationCount;
    private final LongSupplier clockMs;
    private final Supplier<MetadataImage> image;

    /** @param defaultPartitions {@code num.partitions}: what a CreateTopics without a count creates */
    public RequestQuotas(
            Supplier<MetadataImage> image, int samples, long windowMs, int defaultPartitions, LongSupplier clockMs) {
        this.image = image;
        this.resolver = new QuotaResolver(entity -> image.get().clientQuotas().quotas(entity));
        this.mutations = new QuotaManager(samples, windowMs);
        this.mutationCount = new ControllerMutations(image, defaultPartitions);
        this.produce = new QuotaManager(samples, windowMs);
        this.fetch = new QuotaManager(samples, windowMs);
        this.requestTime = new QuotaManager(samples, windowMs);
        this.clockMs = clockMs;
    }

    /** Runs {@code handler} for {@code request} under the quotas of its principal and client id. */
    public CompletableFuture<ApiMessage> handle(RequestContext request, ApiHandler handler, int frameBytes) {
        if (image.get().clientQuotas().entities().isEmpty()) {
            return handler.handle(request); // the common case: no quota anywhere, nothing to resolve or record
        }
        String user = request.principal().name();
        String clientId = request.clientId() == null ? "" : request.clientId();
        ApiKeys api = request.apiKey();
        long bandwidthThrottleMs = 0;
        Optional<QuotaResolver.Resolved> consumerQuota = Optional.empty();
        if (api == ApiKeys.PRODUCE) {
            Optional<QuotaResolver.Resolved> quota =
                    resolver.resolve(user, clientId, ClientQuotaKeys.PRODUCER_BYTE_RATE);
            if (quota.isPresent()) {
                bandwidthThrottleMs = produce.recordAndGetThrottleMs(quota.get(), frameBytes, clockMs.getAsLong());
            }
        } else if (ControllerMutations.counted(api)) {
            Optional<QuotaResolver.Resolved> quota =
                    resolver.resolve(user, clientId, ClientQuotaKeys.CONTROLLER_MUTATION_RATE);
            if (quota.isPresent()) {
                long now = clockMs.getAsLong();
                long overMs = mutations.throttleMs(quota.get(), now);
                if (overMs > 0 && ControllerMutations.strict(api, request.apiVersion())) {
                    ApiMessage refused = request.errorResponse(new ThrottlingQuotaExceededException(
                            "The controller mutation quota is exceeded for this client"));
                    ThrottleTimes.raise(refused, (int) overMs);
                    return CompletableFuture.completedFuture(refused);
                }
                int partitions = mutationCount.partitions(api, request.body());
                bandwidthThrottleMs =
                        partitions == 0 ? overMs : mutations.recordAndGetThrottleMs(quota.get(), partitions, now);
                if (ControllerMutations.strict(api, request.apiVersion())) {
                    bandwidthThrottleMs = 0; // strict clients learn of the quota from the refusal, not a throttle
                }
            }
        } else if (api == ApiKeys.FETCH && !fromFollower(request)) {
            consumerQuota = resolver.resolve(user, clientId, ClientQuotaKeys.CONSUMER_BYTE_RATE);
            consumerQuota.ifPresent(q -> capFetch(request.body(), fetch.maxValueInWindows(q)));
        }
        Optional<QuotaResolver.Resolved> timeQuota =
                api == ApiKeys.API_VERSIONS || api == ApiKeys.SASL_HANDSHAKE || api == ApiKeys.SASL_AUTHENTICATE
                        ? Optional.empty()
                        : resolver.resolve(user, clientId, ClientQuotaKeys.REQUEST_PERCENTAGE);
        long startNanos = System.nanoTime();
        CompletableFuture<ApiMessage> response = handler.handle(request);
        long handlerNanos = System.nanoTime() - startNanos;
        long requestThrottleMs = timeQuota
                .map(q -> requestTime.recordAndGetThrottleMs(q, handlerNanos * 1e-7, clockMs.getAsLong()))
                .orElse(0L);
        long throttleMs = Math.max(bandwidthThrottleMs, requestThrottleMs);
        Optional<QuotaResolver.Resolved> fetchQuota = consumerQuota;
        if (throttleMs == 0 && fetchQuota.isEmpty()) {
            return response;
        }
        return response.thenApply(message -> {
            if (message == null) {
                return null;
            }
            long throttle = throttleMs;
            if (fetchQuota.isPresent() && message instanceof FetchResponseData fetched) {
                long now = clockMs.getAsLong();
                long bytes = recordBytes(fetched);
                long fetchThrottleMs = fetch.recordAndGetThrottleMs(fetchQuota.get(), bytes, now);
                if (fetchThrottleMs > 0) {
                    fetch.unrecord(fetchQuota.get(), bytes, now);
                    message = emptied(fetched);
                }
                throttle = Math.max(throttle, fetchThrottleMs);
            }
            ThrottleTimes.raise(message, (int) Math.min(Integer.MAX_VALUE, throttle));
            return message;
        });
    }

    @Override
    public void report(Sink sink) {
        long now = clockMs.getAsLong();
        report(sink, QuotaType.PRODUCE, produce, now);
        report(sink, QuotaType.FETCH, fetch, now);
        report(sink, QuotaType.REQUEST, requestTime, now);
        report(sink, QuotaType.CONTROLLER_MUTATION, mutations, now);
    }

    private static void report(Sink sink, QuotaType type, QuotaManager manager, long now) {
        manager.forEachRate(
                now, (user, clientId, rate, throttleAvgMs) -> sink.client(type, user, clientId, rate, throttleAvgMs));
    }

    private static boolean fromFollower(RequestContext request) {
        FetchRequestData data = request.body();
        return (request.apiVersion() >= 15 ? data.replicaState().replicaId() : data.replicaId()) >= 0;
    }

    private static void capFetch(FetchRequestData data, long maxBytes) {
        int cap = (int) Math.min(Integer.MAX_VALUE, maxBytes);
        if (data.maxBytes() <= 0 || data.maxBytes() > cap) {
            data.setMaxBytes(cap);
        }
    }

    private static long recordBytes(FetchResponseData response) {
        long bytes = 0;
        for (FetchResponseData.FetchableTopicResponse topic : response.responses()) {
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                if (partition.records() != null) {
                    bytes += partition.records().sizeInBytes();
                }
            }
        }
        return bytes;
    }

    /** The answer to a throttled fetch: no partitions, the same session (Kafka's throttled fetch response). */
    private static FetchResponseData emptied(FetchResponseData response) {
        return new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(response.sessionId());
    }
}
