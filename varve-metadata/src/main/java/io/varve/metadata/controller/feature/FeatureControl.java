package io.varve.metadata.controller.feature;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.image.BrokerRegistration;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.VersionRange;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.common.protocol.Errors;

/**
 * Decides UpdateFeatures as Kafka's KRaft controller does: the request succeeds or fails as a whole
 * (the first refused feature's INVALID_UPDATE_VERSION is the answer). A level must be one the
 * controller supports and every registered broker supports (fenced ones too: they will come back);
 * a lower level than the finalized one needs a downgrade upgrade-type, and metadata.version is never
 * downgraded (older levels could not read what the newer ones wrote). Pure.
 */
public final class FeatureControl {

    private final Map<String, VersionRange> controllerSupported;

    /** @param controllerSupported the levels this controller supports, by feature name */
    public FeatureControl(Map<String, VersionRange> controllerSupported) {
        this.controllerSupported = Map.copyOf(Objects.requireNonNull(controllerSupported, "controllerSupported"));
    }

    public ControllerResult<ErrorReply> updateFeatures(
            MetadataImage image, Map<String, FeatureUpdate> updates, boolean validateOnly) {
        List<MetadataRecord> records = new ArrayList<>();
        for (Map.Entry<String, FeatureUpdate> entry : new TreeMap<>(updates).entrySet()) {
            String feature = entry.getKey();
            FeatureUpdate update = entry.getValue();
            String refusal = refusal(image, feature, update);
            if (refusal != null) {
                return ControllerResult.withoutRecords(ErrorReply.of(Errors.INVALID_UPDATE_VERSION, refusal));
            }
            if (update.maxVersionLevel() != image.features().level(feature)) {
                records.add(new FeatureLevelRecord(feature, update.maxVersionLevel()));
            }
        }
        return ControllerResult.of(validateOnly ? List.of() : records, ErrorReply.NONE);
    }

    /** Why the update is refused, or null if it is acceptable. */
    private String refusal(MetadataImage image, String feature, FeatureUpdate update) {
        short level = update.maxVersionLevel();
        String invalid = "Invalid update version " + level + " for feature " + feature + ".";
        if (feature == null || feature.isEmpty()) {
            return "Invalid feature name: it must not be empty.";
        }
        if (level < 0) {
            return invalid + " The level must not be negative.";
        }
        short current = image.features().level(feature);
        boolean isMetadataVersion = feature.equals(SupportedFeatures.METADATA_VERSION);
        if (level < current) {
            if (!update.upgradeType().isDowngrade()) {
                return invalid + " Can't downgrade the version of this feature without setting the upgrade type to"
                        + " either safe or unsafe downgrade.";
            }
            if (isMetadataVersion) {
                return "Invalid metadata.version " + level + ". Refusing to perform the requested downgrade because"
                        + " it might delete metadata information.";
            }
        } else if (level > current && update.upgradeType().isDowngrade()) {
            return invalid + " Can't downgrade to a newer version.";
        }
        if (level == 0) {
            return isMetadataVersion ? invalid + " metadata.version cannot be removed." : null;
        }
        VersionRange controller = controllerSupported.get(feature);
        if (controller == null) {
            return invalid + " The controller does not support this feature.";
        }
        if (!controller.contains(level)) {
            return invalid + " The controller only supports versions " + controller.min() + "-" + controller.max()
                    + ".";
        }
        for (BrokerRegistration broker : image.cluster().brokers().values()) {
            VersionRange supported = broker.supportedFeatures().get(feature);
            if (supported == null) {
                return invalid + " Broker " + broker.id() + " does not support this feature.";
            }
            if (!supported.contains(level)) {
                return invalid + " Broker " + broker.id() + " only supports versions " + supported.min() + "-"
                        + supported.max() + ".";
            }
        }
        return null;
    }
}
