package io.varve.broker.telemetry;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.protocol.RequestContext;
import io.varve.http.clientmetrics.ClientTelemetryStore;
import io.varve.http.clientmetrics.OtlpMetricsDecoder;
import io.varve.metadata.image.MetadataImage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsRequestData;
import org.apache.kafka.common.message.GetTelemetrySubscriptionsResponseData;
import org.apache.kafka.common.message.PushTelemetryRequestData;
import org.apache.kafka.common.message.PushTelemetryResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GetTelemetrySubscriptions and PushTelemetry (KIP-714). A client asks which metrics to push; this broker answers
 * from the client-metrics resources ({@link ClientMetricsSubscriptions}), assigning a client instance id when the
 * client has none, and accepts pushes of uncompressed OTLP (the accepted compression list is empty, which Kafka's
 * clients read as "send uncompressed"). A push with a stale subscription id gets UNKNOWN_SUBSCRIPTION_ID (the client
 * asks again), one larger than {@link #TELEMETRY_MAX_BYTES} TELEMETRY_TOO_LARGE, one that does not decode
 * INVALID_RECORD, one earlier than half its interval THROTTLING_QUOTA_EXCEEDED.
 */
public final class TelemetryApis {
    private static final Logger log = LoggerFactory.getLogger(TelemetryApis.class);

    /** Kafka's telemetry.max.bytes default. */
    static final int TELEMETRY_MAX_BYTES = 1024 * 1024;
    /** Client instances remembered at most; when full, those silent for three intervals are forgotten first. */
    static final int MAX_INSTANCES = 16_384;

    private static final byte COMPRESSION_NONE = 0;

    private final Supplier<MetadataImage> images;
    private final ClientTelemetryStore store;
    private final LongSupplier clockMs;
    private final ConcurrentHashMap<Uuid, Instance> instances = new ConcurrentHashMap<>();

    private record Instance(
            int subscriptionId, int pushIntervalMs, boolean pushesMetrics, long lastPushMs, long seenMs) {}

    public TelemetryApis(Supplier<MetadataImage> images, ClientTelemetryStore store, LongSupplier clockMs) {
        this.images = images;
        this.store = store;
        this.clockMs = clockMs;
    }

    public void register(ApiRegistry registry) {
        registry.register(ApiKeys.GET_TELEMETRY_SUBSCRIPTIONS, 0, 0, this::subscriptions)
                .register(ApiKeys.PUSH_TELEMETRY, 0, 0, this::push);
    }

    private ClientMetricsSubscriptions.Subscription subscription(RequestContext request, Uuid instanceId) {
        String address = request.clientAddress() == null
                ? ""
                : request.clientAddress().getAddress().getHostAddress();
        String port = request.clientAddress() == null
                ? ""
                : Integer.toString(request.clientAddress().getPort());
        ClientMetricsSubscriptions.Client client = new ClientMetricsSubscriptions.Client(
                instanceId.toString(), request.clientId() == null ? "" : request.clientId(), "", "", address, port);
        return ClientMetricsSubscriptions.forClient(images.get().configs().resources(), client);
    }

    private CompletableFuture<ApiMessage> subscriptions(RequestContext request) {
        GetTelemetrySubscriptionsRequestData data = request.body();
        Uuid instanceId =
                data.clientInstanceId() == null || data.clientInstanceId().equals(Uuid.ZERO_UUID)
                        ? Uuid.randomUuid()
                        : data.clientInstanceId();
        ClientMetricsSubscriptions.Subscription s = subscription(request, instanceId);
        long now = clockMs.getAsLong();
        remember(
                instanceId,
                new Instance(
                        s.subscriptionId(),
                        s.pushIntervalMs(),
                        !s.requestedMetrics().isEmpty(),
                        Long.MIN_VALUE / 2,
                        now));
        return CompletableFuture.completedFuture(new GetTelemetrySubscriptionsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setClientInstanceId(instanceId)
                .setSubscriptionId(s.subscriptionId())
                .setAcceptedCompressionTypes(List.of())
                .setPushIntervalMs(s.pushIntervalMs())
                .setTelemetryMaxBytes(TELEMETRY_MAX_BYTES)
                .setDeltaTemporality(false)
                .setRequestedMetrics(s.requestedMetrics()));
    }

    private void remember(Uuid id, Instance instance) {
        if (instances.size() >= MAX_INSTANCES && !instances.containsKey(id)) {
            long now = clockMs.getAsLong();
            instances.values().removeIf(i -> now - i.seenMs > 3L * i.pushIntervalMs);
            if (instances.size() >= MAX_INSTANCES) {
                instances.keySet().stream().findAny().ifPresent(instances::remove);
            }
        }
        instances.put(id, instance);
    }

    private CompletableFuture<ApiMessage> push(RequestContext request) {
        PushTelemetryRequestData data = request.body();
        return CompletableFuture.completedFuture(new PushTelemetryResponseData()
                .setErrorCode(pushError(request, data).code()));
    }

    private Errors pushError(RequestContext request, PushTelemetryRequestData data) {
        Uuid id = data.clientInstanceId();
        Instance known = id == null ? null : instances.get(id);
        if (known == null) {
            return Errors.UNKNOWN_SUBSCRIPTION_ID;
        }
        ClientMetricsSubscriptions.Subscription now = subscription(request, id);
        if (data.subscriptionId() != known.subscriptionId || now.subscriptionId() != known.subscriptionId) {
            return Errors.UNKNOWN_SUBSCRIPTION_ID; // the configs changed: the client asks for its new subscription
        }
        long nowMs = clockMs.getAsLong();
        if (!data.terminating() && nowMs - known.lastPushMs < known.pushIntervalMs / 2) {
            return Errors.THROTTLING_QUOTA_EXCEEDED;
        }
        instances.put(id, new Instance(known.subscriptionId, known.pushIntervalMs, known.pushesMetrics, nowMs, nowMs));
        if (data.compressionType() != COMPRESSION_NONE) {
            return Errors.UNSUPPORTED_COMPRESSION_TYPE;
        }
        if (data.metrics() != null && data.metrics().remaining() > TELEMETRY_MAX_BYTES) {
            return Errors.TELEMETRY_TOO_LARGE;
        }
        if (data.terminating()) {
            instances.remove(id);
            store.forget(id.toString());
            return Errors.NONE;
        }
        if (data.metrics() == null || !data.metrics().hasRemaining()) {
            return Errors.NONE;
        }
        List<OtlpMetricsDecoder.Point> points;
        try {
            points = OtlpMetricsDecoder.decode(data.metrics());
        } catch (OtlpMetricsDecoder.MalformedException e) {
            log.debug("Telemetry from client {} does not decode: {}", request.clientId(), e.getMessage());
            return Errors.INVALID_RECORD;
        }
        store.push(id.toString(), request.clientId() == null ? "" : request.clientId(), points, known.pushIntervalMs);
        return Errors.NONE;
    }
}
