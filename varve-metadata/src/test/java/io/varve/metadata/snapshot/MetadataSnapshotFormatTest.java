package io.varve.metadata.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.MetadataImageDiff;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MetadataSnapshotFormatTest {
    private static final int SEEDS = Integer.getInteger("varve.metadata.snapshot.seeds", 200);

    @Test
    void anImageLoadedFromItsSnapshotEqualsTheImageForRandomHistories() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            RandomMetadata history = new RandomMetadata(seed, MetadataImage.EMPTY);
            history.run(1 + (int) (seed % 60));
            MetadataImage image = history.image();

            MetadataSnapshotFormat.Loaded loaded =
                    MetadataSnapshotFormat.read(MetadataSnapshotFormat.write(image), image.offset());

            assertThat(loaded.image()).as("seed %d", seed).isEqualTo(image);
            assertThat(loaded.image().offset()).isEqualTo(image.offset());
            assertThat(loaded.records()).isEqualTo(image.toRecords().size());
            assertThat(loaded.deltaFromEmpty().apply(image.offset())).isEqualTo(image);
        }
    }

    @Test
    void theDeltaBetweenTwoImagesTurnsTheFirstIntoTheSecond() {
        for (long seed = 1; seed <= SEEDS; seed++) {
            RandomMetadata history = new RandomMetadata(seed, MetadataImage.EMPTY);
            history.run(1 + (int) (seed % 40));
            MetadataImage before = history.image();
            history.run(1 + (int) (seed % 30)); // a later image of the same history: topics deleted, created, changed
            MetadataImage later = history.image();
            // and an unrelated one: the same topic names under other ids
            RandomMetadata other = new RandomMetadata(seed + 1_000_000, MetadataImage.EMPTY);
            other.run(20);
            MetadataImage unrelated = other.image();

            for (MetadataImage after : new MetadataImage[] {later, unrelated}) {
                if (after.producerIds().nextProducerId() < before.producerIds().nextProducerId()) {
                    continue; // producer ids never go back: no later image has fewer
                }
                MetadataDelta delta = MetadataImageDiff.between(before, after);
                assertThat(delta.apply(Math.max(before.offset(), after.offset())))
                        .as("seed %d", seed)
                        .isEqualTo(new MetadataImage(
                                Math.max(before.offset(), after.offset()),
                                after.features(),
                                after.topics(),
                                after.configs(),
                                after.cluster(),
                                after.producerIds()));
                if (delta.topicsDelta() != null) {
                    assertThat(delta.topicsDelta().deletedTopics().keySet())
                            .allSatisfy(id ->
                                    assertThat(after.topics().getTopic(id)).isNull());
                }
            }
        }
    }

    @Test
    void aSnapshotWithAnyByteChangedOrCutShortIsNeverApplied() {
        RandomMetadata history = new RandomMetadata(42, MetadataImage.EMPTY);
        history.run(50);
        MetadataImage image = history.image();
        byte[] bytes = MetadataSnapshotFormat.write(image);
        Random random = new Random(7);
        for (int i = 0; i < 200; i++) {
            byte[] damaged = bytes.clone();
            damaged[random.nextInt(damaged.length)] ^= (byte) (1 + random.nextInt(255));
            assertThatThrownBy(() -> MetadataSnapshotFormat.read(damaged, image.offset()))
                    .isInstanceOf(CorruptSnapshotException.class)
                    .hasMessageContaining("checksum");
        }
        byte[] cut = Arrays.copyOf(bytes, bytes.length - 1 - random.nextInt(bytes.length - 1));
        assertThatThrownBy(() -> MetadataSnapshotFormat.read(cut, image.offset()))
                .isInstanceOf(CorruptSnapshotException.class);
    }

    @Test
    void aSnapshotWhoseImageOffsetDisagreesWithItsIdIsRefused() {
        RandomMetadata history = new RandomMetadata(3, MetadataImage.EMPTY);
        history.run(5);
        byte[] bytes = MetadataSnapshotFormat.write(history.image());

        assertThatThrownBy(
                        () -> MetadataSnapshotFormat.read(bytes, history.image().offset() + 1))
                .isInstanceOf(CorruptSnapshotException.class)
                .hasMessageContaining("its id says");
    }
}
