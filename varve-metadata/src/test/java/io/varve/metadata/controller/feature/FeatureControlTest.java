package io.varve.metadata.controller.feature;

import static io.varve.metadata.controller.ClusterFixture.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.metadata.controller.ControllerResult;
import io.varve.metadata.controller.ErrorReply;
import io.varve.metadata.controller.feature.FeatureUpdate.UpgradeType;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.VersionRange;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class FeatureControlTest {

    private final FeatureControl control = new FeatureControl(SupportedFeatures.THIS_BUILD);

    private static MetadataImage twoBrokersAt(int metadataVersion, int groupVersion) {
        return cluster()
                .unfenced(1)
                .fenced(2)
                .record(new FeatureLevelRecord("metadata.version", (short) metadataVersion))
                .record(new FeatureLevelRecord("group.version", (short) groupVersion))
                .image();
    }

    private ControllerResult<ErrorReply> update(MetadataImage image, Map<String, FeatureUpdate> updates) {
        return control.updateFeatures(image, updates, false);
    }

    @Test
    void anUpgradeEveryBrokerSupportsIsFinalized() {
        ControllerResult<ErrorReply> result = update(
                twoBrokersAt(7, 0),
                Map.of("metadata.version", FeatureUpdate.upgrade(27), "group.version", FeatureUpdate.upgrade(1)));

        assertThat(result.response()).isEqualTo(ErrorReply.NONE);
        assertThat(result.records())
                .containsExactly(
                        new FeatureLevelRecord("group.version", (short) 1),
                        new FeatureLevelRecord("metadata.version", (short) 27));
    }

    @Test
    void aLevelOneRegisteredBrokerDoesNotSupportFailsTheWholeRequest() {
        MetadataImage image = cluster()
                .unfenced(1)
                .record(new RegisterBrokerRecord(
                        2,
                        Uuid.randomUuid(),
                        200,
                        List.of(new Endpoint("PLAINTEXT", "b2", 9092, "PLAINTEXT")),
                        null,
                        Map.of("metadata.version", VersionRange.of(7, 20)),
                        true,
                        false))
                .image();

        ControllerResult<ErrorReply> result = update(
                image,
                Map.of("metadata.version", FeatureUpdate.upgrade(21), "kraft.version", FeatureUpdate.upgrade(0)));
        ControllerResult<ErrorReply> unsupportedFeature =
                update(image, Map.of("group.version", FeatureUpdate.upgrade(1)));

        assertThat(result.response().error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(result.response().message()).contains("Broker 2 only supports versions 7-20");
        assertThat(result.records()).isEmpty();
        assertThat(unsupportedFeature.response().message()).contains("Broker 2 does not support this feature");
    }

    @Test
    void levelsAndFeaturesTheControllerDoesNotKnowAreRefused() {
        MetadataImage image = twoBrokersAt(7, 0);

        assertThat(update(image, Map.of("transaction.version", FeatureUpdate.upgrade(3)))
                        .response()
                        .message())
                .contains("The controller only supports versions 0-2");
        assertThat(update(image, Map.of("unknown.version", FeatureUpdate.upgrade(1)))
                        .response()
                        .message())
                .contains("The controller does not support this feature");
    }

    @Test
    void aDowngradeNeedsADowngradeUpgradeTypeAndAnUpgradeMustNotClaimToBeOne() {
        MetadataImage image = twoBrokersAt(27, 1);

        ControllerResult<ErrorReply> plain = update(image, Map.of("group.version", FeatureUpdate.upgrade(0)));
        ControllerResult<ErrorReply> safe =
                update(image, Map.of("group.version", new FeatureUpdate((short) 0, UpgradeType.SAFE_DOWNGRADE)));
        ControllerResult<ErrorReply> upwards = update(
                twoBrokersAt(7, 0), Map.of("group.version", new FeatureUpdate((short) 1, UpgradeType.SAFE_DOWNGRADE)));

        assertThat(plain.response().error()).isEqualTo(Errors.INVALID_UPDATE_VERSION);
        assertThat(plain.response().message()).contains("without setting the upgrade type");
        assertThat(safe.response()).isEqualTo(ErrorReply.NONE);
        assertThat(safe.records()).containsExactly(new FeatureLevelRecord("group.version", (short) 0));
        assertThat(upwards.response().message()).contains("Can't downgrade to a newer version");
    }

    @Test
    void metadataVersionIsNeverDowngradedNorRemoved() {
        MetadataImage image = twoBrokersAt(27, 0);

        for (UpgradeType type : List.of(UpgradeType.SAFE_DOWNGRADE, UpgradeType.UNSAFE_DOWNGRADE)) {
            assertThat(update(image, Map.of("metadata.version", new FeatureUpdate((short) 20, type)))
                            .response()
                            .error())
                    .isEqualTo(Errors.INVALID_UPDATE_VERSION);
            assertThat(update(image, Map.of("metadata.version", new FeatureUpdate((short) 0, type)))
                            .response()
                            .error())
                    .isEqualTo(Errors.INVALID_UPDATE_VERSION);
        }
    }

    @Test
    void validateOnlyAndUnchangedLevelsWriteNothing() {
        MetadataImage image = twoBrokersAt(7, 0);

        assertThat(control.updateFeatures(image, Map.of("metadata.version", FeatureUpdate.upgrade(27)), true)
                        .records())
                .isEmpty();
        assertThat(update(image, Map.of("metadata.version", FeatureUpdate.upgrade(7)))
                        .records())
                .isEmpty();
    }
}
