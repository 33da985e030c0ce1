package io.varve.broker.api;

import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.image.MetadataImage;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKeyCollection;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKeyCollection;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ApiVersions: the advertised version range of every API this broker implements, the feature ranges this build
 * supports and the cluster's finalized feature levels (from v3, as Kafka sends them; {@code kafka-features describe}
 * reads them).
 *
 * <p>From v5 (KIP-1242) a client that knows which cluster and node it means to reach says so; a broker that is not
 * that node of that cluster (an address reused by another cluster, a node id moved to another host) answers
 * REBOOTSTRAP_REQUIRED with nothing else, and a client with {@code metadata.recovery.strategy=rebootstrap} starts over
 * from its bootstrap servers. As in Kafka, the check is made when a cluster id is given, and then the node id must
 * match too; controllers do not check.
 */
public final class ApiVersionsHandler implements ApiHandler {
    /** The first version whose request may name the cluster and node it means to reach. */
    static final short FIRST_IDENTITY_CHECK_VERSION = 5;

    private final ApiRegistry registry;
    private final Supplier<MetadataImage> image;
    /** This broker's cluster id, or null when requests are not checked (controllers). */
    private final String clusterId;

    private final int nodeId;

    /** A handler that does not check the cluster and node a request names (a controller's). */
    public ApiVersionsHandler(ApiRegistry registry, Supplier<MetadataImage> image) {
        this(registry, image, null, -1);
    }

    /** A broker's handler: a v5+ request naming another cluster or node is answered REBOOTSTRAP_REQUIRED. */
    public ApiVersionsHandler(ApiRegistry registry, Supplier<MetadataImage> image, String clusterId, int nodeId) {
        this.registry = registry;
        this.image = image;
        this.clusterId = clusterId;
        this.nodeId = nodeId;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        if (request.apiVersion() >= FIRST_IDENTITY_CHECK_VERSION && clusterId != null) {
            ApiVersionsRequestData data = request.body();
            if (meantForAnother(data.clusterId(), data.nodeId())) {
                return CompletableFuture.completedFuture(
                        new ApiVersionsResponseData().setErrorCode(Errors.REBOOTSTRAP_REQUIRED.code()));
            }
        }
        return CompletableFuture.completedFuture(response(Errors.NONE, request.apiVersion()));
    }

    /** Whether a request naming {@code requestedCluster} (null: not known) and {@code requestedNode} is not for us. */
    boolean meantForAnother(String requestedCluster, int requestedNode) {
        return requestedCluster != null && (!requestedCluster.equals(clusterId) || requestedNode != nodeId);
    }

    /** The answer (sent as v0) to an ApiVersions request of a version newer than ours (KIP-511). */
    public ApiVersionsResponseData response(Errors error) {
        return response(error, (short) 0);
    }

    /** The response for {@code version}: features are tagged fields of v3 and later only. */
    private ApiVersionsResponseData response(Errors error, short version) {
        ApiVersionCollection keys = new ApiVersionCollection();
        registry.all()
                .forEach(api -> keys.add(new ApiVersion()
                        .setApiKey(api.key().id)
                        .setMinVersion(api.advertisedMin())
                        .setMaxVersion(api.maxVersion())));
        ApiVersionsResponseData response = new ApiVersionsResponseData()
                .setErrorCode(error.code())
                .setApiKeys(keys)
                .setThrottleTimeMs(0)
                .setFinalizedFeaturesEpoch(-1L);
        if (version < 3) {
            return response;
        }
        SupportedFeatureKeyCollection supported = new SupportedFeatureKeyCollection();
        new TreeMap<>(SupportedFeatures.THIS_BUILD)
                .forEach((name, range) -> supported.add(new SupportedFeatureKey()
                        .setName(name)
                        .setMinVersion(range.min())
                        .setMaxVersion(range.max())));
        MetadataImage current = image.get();
        FinalizedFeatureKeyCollection finalized = new FinalizedFeatureKeyCollection();
        Map<String, Short> levels = current.features().finalizedLevels();
        new TreeMap<>(levels)
                .forEach((name, level) -> finalized.add(new FinalizedFeatureKey()
                        .setName(name)
                        .setMaxVersionLevel(level)
                        .setMinVersionLevel(level)));
        return response.setSupportedFeatures(supported)
                // the epoch orders what brokers report: the image offset only grows
                .setFinalizedFeaturesEpoch(current.offset())
                .setFinalizedFeatures(finalized);
    }
}
