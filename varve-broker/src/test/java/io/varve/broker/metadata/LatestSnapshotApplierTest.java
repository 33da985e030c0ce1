package io.varve.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LatestSnapshotApplierTest {

    private static MetadataSnapshot at(long offset) {
        return new MetadataSnapshot(offset, Map.of(), Map.of(), List.of(), Map.of(), Map.of());
    }

    @Test
    void snapshotsSupersededWhileAnApplyRunsAreSkippedAndOnlyTheNewestIsAppliedNext() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<Long> applied = new CopyOnWriteArrayList<>();
        try (LatestSnapshotApplier applier = new LatestSnapshotApplier("test-apply", s -> {
            if (s.offset() == 1) {
                firstStarted.countDown();
                hold(releaseFirst);
            }
            applied.add(s.offset());
        })) {
            applier.submit(at(1));
            assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
            applier.submit(at(2));
            applier.submit(at(3));
            applier.submit(at(4));
            releaseFirst.countDown();
            assertThat(applier.awaitApplied(4, 10_000)).isTrue();
            assertThat(applied).containsExactly(1L, 4L);
        }
    }

    @Test
    void aFailedApplyDoesNotStopTheNextOne() throws Exception {
        List<Long> applied = new CopyOnWriteArrayList<>();
        try (LatestSnapshotApplier applier = new LatestSnapshotApplier("test-apply", s -> {
            if (s.offset() == 1) {
                throw new IllegalStateException("a log dir failed");
            }
            applied.add(s.offset());
        })) {
            applier.submit(at(1));
            assertThat(applier.awaitApplied(1, 10_000)).isTrue();
            applier.submit(at(2));
            assertThat(applier.awaitApplied(2, 10_000)).isTrue();
            assertThat(applied).containsExactly(2L);
        }
    }

    @Test
    void anOlderSnapshotThanTheOneWaitingIsRefused() throws Exception {
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch firstStarted = new CountDownLatch(1);
        try (LatestSnapshotApplier applier = new LatestSnapshotApplier("test-apply", s -> {
            firstStarted.countDown();
            hold(releaseFirst);
        })) {
            applier.submit(at(1));
            assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
            applier.submit(at(5));
            assertThatThrownBy(() -> applier.submit(at(4))).isInstanceOf(IllegalStateException.class);
            releaseFirst.countDown();
        }
    }

    @Test
    void closeWaitsForTheApplyInProgressAndDropsWhatWaits() throws Exception {
        CountDownLatch firstStarted = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        List<Long> applied = new CopyOnWriteArrayList<>();
        LatestSnapshotApplier applier = new LatestSnapshotApplier("test-apply", s -> {
            firstStarted.countDown();
            hold(releaseFirst);
            applied.add(s.offset());
        });
        applier.submit(at(1));
        assertThat(firstStarted.await(10, TimeUnit.SECONDS)).isTrue();
        applier.submit(at(2));
        Thread closer = new Thread(applier::close);
        closer.start();
        // the closer parks in its join on the apply thread, which still runs the first apply
        await().atMost(Duration.ofSeconds(10)).until(() -> closer.getState() == Thread.State.TIMED_WAITING);
        assertThat(closer.isAlive()).as("close waits for the apply in progress").isTrue();
        assertThat(applied).isEmpty();
        releaseFirst.countDown();
        closer.join(10_000);
        assertThat(closer.isAlive()).isFalse();
        applier.submit(at(3));
        assertThat(applied).containsExactly(1L);
        assertThat(applier.awaitApplied(3, 100)).isFalse();
    }

    private static void hold(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
