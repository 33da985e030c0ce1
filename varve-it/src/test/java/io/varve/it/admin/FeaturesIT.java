package io.varve.it.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.it.SharedBroker;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.common.errors.InvalidUpdateVersionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Kafka's Admin describeFeatures / updateFeatures (what {@code kafka-features describe} and upgrade use). */
class FeaturesIT {

    @RegisterExtension
    static final SharedBroker shared = new SharedBroker();

    private FeatureMetadata describe() throws Exception {
        return shared.admin().describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aNewClusterStartsWithMetadataGroupAndTransactionVersionsFinalizedAndUpdateFeaturesChangesALevel()
            throws Exception {
        FeatureMetadata before = describe();
        assertThat(before.supportedFeatures()).containsKeys("metadata.version", "kraft.version", "group.version");
        assertThat(before.supportedFeatures().get("metadata.version").minVersion())
                .isEqualTo((short) 7);
        short metadataVersion =
                before.supportedFeatures().get("metadata.version").maxVersion();
        assertThat(before.finalizedFeatures().get("metadata.version").maxVersionLevel())
                .isEqualTo(metadataVersion);
        assertThat(before.finalizedFeatures().get("group.version").maxVersionLevel())
                .isEqualTo((short) 1);
        // Kafka 4.x's kafka-storage format default: transactions v2 (KIP-890)
        assertThat(before.finalizedFeatures().get("transaction.version").maxVersionLevel())
                .isEqualTo((short) 2);

        // validate only: nothing changes
        shared.admin()
                .updateFeatures(
                        Map.of("group.version", new FeatureUpdate((short) 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                        new UpdateFeaturesOptions().validateOnly(true))
                .all()
                .get(30, TimeUnit.SECONDS);
        assertThat(describe().finalizedFeatures().get("group.version").maxVersionLevel())
                .isEqualTo((short) 1);

        // metadata.version is never downgraded
        assertThatThrownBy(() -> shared.admin()
                        .updateFeatures(
                                Map.of(
                                        "metadata.version",
                                        new FeatureUpdate(
                                                (short) (metadataVersion - 1),
                                                FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                                new UpdateFeaturesOptions())
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);

        shared.admin()
                .updateFeatures(
                        Map.of("group.version", new FeatureUpdate((short) 0, FeatureUpdate.UpgradeType.SAFE_DOWNGRADE)),
                        new UpdateFeaturesOptions())
                .all()
                .get(30, TimeUnit.SECONDS);
        FeatureMetadata after = describe();
        assertThat(after.finalizedFeatures()).doesNotContainKey("group.version");
        assertThat(after.finalizedFeaturesEpoch().orElseThrow())
                .isGreaterThan(before.finalizedFeaturesEpoch().orElseThrow());
        shared.admin()
                .updateFeatures(
                        Map.of("group.version", new FeatureUpdate((short) 1, FeatureUpdate.UpgradeType.UPGRADE)),
                        new UpdateFeaturesOptions())
                .all()
                .get(30, TimeUnit.SECONDS);
        assertThat(describe().finalizedFeatures().get("group.version").maxVersionLevel())
                .isEqualTo((short) 1);
    }

    @Test
    void aLevelThisBuildDoesNotSupportIsRefusedWithInvalidUpdateVersion() {
        assertThatThrownBy(() -> shared.admin()
                        .updateFeatures(
                                Map.of(
                                        "transaction.version",
                                        new FeatureUpdate((short) 3, FeatureUpdate.UpgradeType.UPGRADE)),
                                new UpdateFeaturesOptions())
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidUpdateVersionException.class);
    }
}
