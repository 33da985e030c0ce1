package io.varve.metadata.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.varve.metadata.image.MetadataImage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SnapshotGeneratorTest {

    private record Stored(long endOffset, byte[] bytes) {}

    @Test
    void anImagePastTheByteLimitIsWrittenOffTheCallingThreadAndLoadsBackEqual() {
        List<Stored> stored = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        try (SnapshotGenerator generator = new SnapshotGenerator(
                100,
                0,
                (end, bytes) -> {
                    threads.add(Thread.currentThread().getName());
                    stored.add(new Stored(end, bytes));
                    return CompletableFuture.completedFuture(null);
                },
                () -> 0L,
                "snapshot-test")) {
            RandomMetadata history = new RandomMetadata(1, MetadataImage.EMPTY);
            history.run(3);
            generator.committed(history.image(), 99);
            assertThat(generator.written()).isZero();
            history.run(3);
            MetadataImage image = history.image();
            generator.committed(image, 1);

            await().atMost(Duration.ofSeconds(10)).until(() -> generator.written() == 1);
            assertThat(stored).hasSize(1);
            assertThat(stored.get(0).endOffset()).isEqualTo(image.offset() + 1);
            assertThat(MetadataSnapshotFormat.read(stored.get(0).bytes(), image.offset())
                            .image())
                    .isEqualTo(image);
            assertThat(threads).containsExactly("snapshot-test");
        }
    }

    @Test
    void theIntervalWritesASnapshotOfAnIdleClusterThatHadSomethingNew() {
        AtomicLong nowMs = new AtomicLong();
        List<Stored> stored = new CopyOnWriteArrayList<>();
        try (SnapshotGenerator generator = new SnapshotGenerator(
                Long.MAX_VALUE,
                50,
                (end, bytes) -> {
                    stored.add(new Stored(end, bytes));
                    return CompletableFuture.completedFuture(null);
                },
                nowMs::get,
                "snapshot-test")) {
            RandomMetadata history = new RandomMetadata(2, MetadataImage.EMPTY);
            history.run(2);
            generator.committed(history.image(), 10);
            nowMs.set(50); // no commit after this: the generator's own check finds the interval passed

            await().atMost(Duration.ofSeconds(10)).until(() -> generator.written() == 1);
            nowMs.set(500);
            // nothing new since: no second snapshot however long we wait for the check to run again
            await().pollDelay(Duration.ofMillis(200))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> true);
            assertThat(stored).hasSize(1);
        }
    }

    @Test
    void aSnapshotTheLogRefusedIsTriedAgainOnTheNextCommit() {
        AtomicBoolean refuse = new AtomicBoolean(true);
        List<Stored> stored = new CopyOnWriteArrayList<>();
        AtomicLong attempts = new AtomicLong();
        try (SnapshotGenerator generator = new SnapshotGenerator(
                10,
                0,
                (end, bytes) -> {
                    attempts.incrementAndGet();
                    if (refuse.get()) {
                        return CompletableFuture.failedFuture(new IllegalStateException("disk full"));
                    }
                    stored.add(new Stored(end, bytes));
                    return CompletableFuture.completedFuture(null);
                },
                () -> 0L,
                "snapshot-test")) {
            RandomMetadata history = new RandomMetadata(3, MetadataImage.EMPTY);
            history.run(2);
            generator.committed(history.image(), 10);
            await().atMost(Duration.ofSeconds(10)).until(() -> attempts.get() == 1);
            refuse.set(false);
            history.run(1);
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                generator.committed(history.image(), 1); // 1 byte alone is under the limit: the refused 10 still count
                assertThat(generator.written()).isEqualTo(1);
            });
            assertThat(stored.get(0).endOffset()).isEqualTo(history.image().offset() + 1);
        }
    }

    @Test
    void aLoadedSnapshotIsNotWrittenAgain() {
        List<Stored> stored = new CopyOnWriteArrayList<>();
        try (SnapshotGenerator generator = new SnapshotGenerator(
                1,
                0,
                (end, bytes) -> {
                    stored.add(new Stored(end, bytes));
                    return CompletableFuture.completedFuture(null);
                },
                () -> 0L,
                "snapshot-test")) {
            RandomMetadata history = new RandomMetadata(4, MetadataImage.EMPTY);
            history.run(2);
            generator.loaded(history.image());
            generator.committed(history.image(), 5); // the same image: nothing beyond the snapshot

            assertThat(generator.written()).isZero();
            assertThat(stored).isEmpty();
        }
    }
}
