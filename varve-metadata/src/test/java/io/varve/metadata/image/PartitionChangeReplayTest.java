package io.varve.metadata.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.record.FeatureLevelRecord;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.PartitionChangeRecord;
import io.varve.metadata.record.PartitionRecord;
import io.varve.metadata.record.TopicRecord;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class PartitionChangeReplayTest {

    private static final Uuid ORDERS = new Uuid(0, 1);

    private static MetadataImage replay(MetadataImage base, MetadataRecord... records) {
        MetadataDelta delta = new MetadataDelta(base);
        for (MetadataRecord record : records) {
            delta.replay(record);
        }
        return delta.apply(base.offset() + records.length);
    }

    private static MetadataImage orders() {
        return replay(
                MetadataImage.EMPTY,
                new TopicRecord("orders", ORDERS),
                new PartitionRecord(ORDERS, 0, new int[] {1, 2, 3}, new int[] {1, 2, 3}, 1, 4, 9));
    }

    private static PartitionImage partition(MetadataImage image) {
        return image.topics().getTopic(ORDERS).partition(0);
    }

    @Test
    void anIsrChangeRaisesThePartitionEpochOnly() {
        MetadataImage after = replay(orders(), new PartitionChangeRecord(ORDERS, 0, new int[] {1, 3}, -2, null));

        assertThat(partition(after).isr()).containsExactly(1, 3);
        assertThat(partition(after).leader()).isEqualTo(1);
        assertThat(partition(after).leaderEpoch()).isEqualTo(4);
        assertThat(partition(after).partitionEpoch()).isEqualTo(10);
    }

    @Test
    void aLeaderChangeRaisesBothEpochsAndNoLeaderIsALeaderChange() {
        MetadataImage moved = replay(orders(), new PartitionChangeRecord(ORDERS, 0, new int[] {2, 3}, 2, null));
        MetadataImage offline = replay(moved, new PartitionChangeRecord(ORDERS, 0, new int[] {2}, -1, null));

        assertThat(partition(moved).leader()).isEqualTo(2);
        assertThat(partition(moved).leaderEpoch()).isEqualTo(5);
        assertThat(partition(moved).partitionEpoch()).isEqualTo(10);
        assertThat(partition(offline).leader()).isEqualTo(-1);
        assertThat(partition(offline).leaderEpoch()).isEqualTo(6);
        assertThat(partition(offline).partitionEpoch()).isEqualTo(11);
    }

    @Test
    void changesInOneDeltaCompose() {
        MetadataImage after = replay(
                orders(),
                new PartitionChangeRecord(ORDERS, 0, new int[] {1, 2}, -2, null),
                new PartitionChangeRecord(ORDERS, 0, null, 2, null));

        assertThat(partition(after).isr()).containsExactly(1, 2);
        assertThat(partition(after).leader()).isEqualTo(2);
        assertThat(partition(after).partitionEpoch()).isEqualTo(11);
    }

    @Test
    void changesThatBreakPartitionInvariantsOrNameUnknownPartitionsBreakTheLog() {
        MetadataImage image = orders();

        assertThatThrownBy(() -> replay(image, new PartitionChangeRecord(ORDERS, 0, new int[] {1, 4}, -2, null)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside the replicas");
        assertThatThrownBy(() -> replay(image, new PartitionChangeRecord(ORDERS, 0, new int[] {2, 3}, -2, null)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not in the ISR");
        assertThatThrownBy(() -> replay(image, new PartitionChangeRecord(ORDERS, 1, null, -1, null)))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> replay(image, new PartitionChangeRecord(new Uuid(0, 9), 0, null, -1, null)))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void featureLevelsAreFinalizedAndLevelZeroRemovesAFeatureAndMetadataVersionComesFirstInASnapshot() {
        MetadataImage image = replay(
                MetadataImage.EMPTY,
                new FeatureLevelRecord("transaction.version", (short) 2),
                new FeatureLevelRecord("metadata.version", (short) 27),
                new FeatureLevelRecord("group.version", (short) 1));
        MetadataImage removed = replay(image, new FeatureLevelRecord("group.version", (short) 0));

        assertThat(image.features().level("transaction.version")).isEqualTo((short) 2);
        assertThat(removed.features().finalizedLevels()).doesNotContainKey("group.version");
        assertThat(removed.features().level("group.version")).isEqualTo((short) 0);
        assertThat(image.toRecords().get(0)).isEqualTo(new FeatureLevelRecord("metadata.version", (short) 27));
        assertThat(replay(MetadataImage.EMPTY, image.toRecords().toArray(MetadataRecord[]::new))
                        .features())
                .isEqualTo(image.features());
    }
}
