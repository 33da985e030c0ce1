package io.varve.broker.api;

import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.feature.SupportedFeatures;
import io.varve.metadata.image.MetadataImage;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
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
 */
public final class ApiVersionsHandler implements ApiHandler {
    private final ApiRegistry registry;
    private final Supplier<MetadataImage> image;

    public ApiVersionsHandler(ApiRegistry registry, Supplier<MetadataImage> image) {
        this.registry = registry;
        this.image = image;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        return CompletableFuture.completedFuture(response(Errors.NONE, request.apiVersion()));
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
