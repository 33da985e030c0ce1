package io.varve.metadata.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.record.BrokerRegistrationChangeRecord;
import io.varve.metadata.record.Endpoint;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.RegisterBrokerRecord;
import io.varve.metadata.record.UnregisterBrokerRecord;
import io.varve.metadata.record.VersionRange;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class ClusterDeltaTest {

    private static RegisterBrokerRecord fenced(int id, long epoch, String rack) {
        return new RegisterBrokerRecord(
                id,
                Uuid.randomUuid(),
                epoch,
                List.of(new Endpoint("PLAINTEXT", "b" + id, 9092, "PLAINTEXT")),
                rack,
                Map.of("metadata.version", VersionRange.of(7, 27)),
                true,
                false);
    }

    private static MetadataDelta deltaOf(MetadataImage base, MetadataRecord... records) {
        MetadataDelta delta = new MetadataDelta(base);
        for (MetadataRecord record : records) {
            delta.replay(record);
        }
        return delta;
    }

    private static MetadataImage image(MetadataRecord... records) {
        return deltaOf(MetadataImage.EMPTY, records).apply(records.length);
    }

    @Test
    void aNewRegistrationStartsFencedAndIsNotActive() {
        MetadataImage image = image(fenced(1, 10, "a"));

        assertThat(image.cluster().broker(1).fenced()).isTrue();
        assertThat(image.cluster().activeBrokerIds()).isEmpty();
        assertThat(image.cluster().brokerIds()).containsExactly(1);
    }

    @Test
    void unfencingMakesABrokerActiveAndTheDeltaSaysSo() {
        MetadataImage base = image(fenced(1, 10, "a"), fenced(2, 11, "b"));

        MetadataDelta delta = deltaOf(base, BrokerRegistrationChangeRecord.unfence(2, 11));
        MetadataImage after = delta.apply(base.offset() + 1);

        assertThat(delta.clusterDelta().newlyUnfenced()).containsExactly(2);
        assertThat(delta.clusterDelta().newlyFenced()).isEmpty();
        assertThat(after.cluster().activeBrokerIds()).containsExactly(2);
    }

    @Test
    void controlledShutdownLeavesTheBrokerUnfencedButNotActiveAndFencingEndsIt() {
        MetadataImage base = image(fenced(1, 10, null), BrokerRegistrationChangeRecord.unfence(1, 10));

        MetadataDelta shutdown = deltaOf(base, BrokerRegistrationChangeRecord.enterControlledShutdown(1, 10));
        MetadataImage shuttingDown = shutdown.apply(5);
        MetadataDelta fence = deltaOf(shuttingDown, BrokerRegistrationChangeRecord.fence(1, 10));
        BrokerRegistration fenced = fence.apply(6).cluster().broker(1);

        assertThat(shutdown.clusterDelta().newlyInControlledShutdown()).containsExactly(1);
        assertThat(shuttingDown.cluster().broker(1).fenced()).isFalse();
        assertThat(shuttingDown.cluster().isActive(1)).isFalse();
        assertThat(fence.clusterDelta().newlyFenced()).containsExactly(1);
        assertThat(fenced.fenced()).isTrue();
        assertThat(fenced.inControlledShutdown()).isFalse();
    }

    @Test
    void unregisteringRemovesTheBrokerButRemembersItsEpoch() {
        MetadataImage base = image(fenced(1, 10, null), fenced(2, 30, null));

        MetadataDelta delta = deltaOf(base, new UnregisterBrokerRecord(2, 30));
        MetadataImage after = delta.apply(3);

        assertThat(delta.clusterDelta().unregisteredBrokers()).containsExactly(2);
        assertThat(delta.clusterDelta().changedBrokers()).isEmpty();
        assertThat(after.cluster().brokerIds()).containsExactly(1);
        assertThat(after.cluster().highestBrokerEpoch()).isEqualTo(30);
    }

    @Test
    void changesAimedAtAnotherEpochOrAnUnknownBrokerBreakTheLog() {
        MetadataImage base = image(fenced(1, 10, null));

        assertThatThrownBy(() -> deltaOf(base, BrokerRegistrationChangeRecord.unfence(1, 9)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> deltaOf(base, BrokerRegistrationChangeRecord.unfence(2, 10)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> deltaOf(base, new UnregisterBrokerRecord(1, 11)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> deltaOf(base, BrokerRegistrationChangeRecord.enterControlledShutdown(1, 10)))
                .as("a fenced broker cannot enter controlled shutdown")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theLifecycleSurvivesASnapshot() {
        MetadataImage image = image(
                fenced(1, 10, "a"),
                fenced(2, 11, "b"),
                BrokerRegistrationChangeRecord.unfence(1, 10),
                BrokerRegistrationChangeRecord.unfence(2, 11),
                BrokerRegistrationChangeRecord.enterControlledShutdown(2, 11));

        MetadataImage rebuilt = image(image.toRecords().toArray(MetadataRecord[]::new));

        assertThat(rebuilt.cluster()).isEqualTo(image.cluster());
        assertThat(rebuilt.cluster().broker(2).inControlledShutdown()).isTrue();
        assertThat(rebuilt.cluster().broker(1).supportedFeatures())
                .containsEntry("metadata.version", VersionRange.of(7, 27));
    }
}
