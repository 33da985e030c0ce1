package io.varve.broker.api;

import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** ApiVersions: the advertised version range of every API this broker implements. */
public final class ApiVersionsHandler implements ApiHandler {
    private final ApiRegistry registry;

    public ApiVersionsHandler(ApiRegistry registry) {
        this.registry = registry;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        return CompletableFuture.completedFuture(response(Errors.NONE));
    }

    /** Also the answer (sent as v0) to an ApiVersions request of a version newer than ours (KIP-511). */
    public ApiVersionsResponseData response(Errors error) {
        ApiVersionCollection keys = new ApiVersionCollection();
        registry.all()
                .forEach(api -> keys.add(new ApiVersion()
                        .setApiKey(api.key().id)
                        .setMinVersion(api.advertisedMin())
                        .setMaxVersion(api.maxVersion())));
        return new ApiVersionsResponseData()
                .setErrorCode(error.code())
                .setApiKeys(keys)
                .setThrottleTimeMs(0)
                .setFinalizedFeaturesEpoch(-1L);
    }
}
