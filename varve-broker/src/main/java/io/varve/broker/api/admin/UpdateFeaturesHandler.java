package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.feature.FeatureUpdate;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.UpdateFeaturesRequestData;
import org.apache.kafka.common.message.UpdateFeaturesRequestData.FeatureUpdateKey;
import org.apache.kafka.common.message.UpdateFeaturesResponseData;
import org.apache.kafka.common.message.UpdateFeaturesResponseData.UpdatableFeatureResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * UpdateFeatures: finalizes feature levels through the controller, all or nothing (as Kafka's KRaft controller does):
 * the top-level error is the request's, and up to v1 each feature gets that same result.
 */
public final class UpdateFeaturesHandler implements ApiHandler {
    private final QuorumController controller;

    public UpdateFeaturesHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        UpdateFeaturesRequestData data = request.body();
        short version = request.apiVersion();
        Map<String, FeatureUpdate> updates = new LinkedHashMap<>();
        for (FeatureUpdateKey key : data.featureUpdates()) {
            FeatureUpdate.UpgradeType type;
            if (version == 0) {
                type = key.allowDowngrade()
                        ? FeatureUpdate.UpgradeType.SAFE_DOWNGRADE
                        : FeatureUpdate.UpgradeType.UPGRADE;
            } else {
                type = FeatureUpdate.UpgradeType.forId(key.upgradeType());
                if (type == null) {
                    return CompletableFuture.completedFuture(response(
                            data,
                            version,
                            Errors.INVALID_UPDATE_VERSION,
                            "Unknown upgrade type " + key.upgradeType() + " for " + key.feature() + "."));
                }
            }
            updates.put(key.feature(), new FeatureUpdate(key.maxVersionLevel(), type));
        }
        return controller
                .updateFeatures(updates, version >= 1 && data.validateOnly())
                .thenApply(reply -> response(data, version, reply.error(), reply.message()));
    }

    private static UpdateFeaturesResponseData response(
            UpdateFeaturesRequestData data, short version, Errors error, String message) {
        UpdateFeaturesResponseData response = new UpdateFeaturesResponseData()
                .setErrorCode(error.code())
                .setErrorMessage(error == Errors.NONE ? null : message);
        if (version <= 1) {
            for (FeatureUpdateKey key : data.featureUpdates()) {
                response.results()
                        .add(new UpdatableFeatureResult()
                                .setFeature(key.feature())
                                .setErrorCode(error.code())
                                .setErrorMessage(error == Errors.NONE ? null : message));
            }
        }
        return response;
    }
}
