package io.varve.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class FetchPurgatoryTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final TopicPartition OTHER = new TopicPartition("t", 1);

    @Test
    void aWaitingFetchCompletesOnceEnoughBytesWereAppendedToItsPartitions() {
        try (FetchPurgatory purgatory = new FetchPurgatory(Runnable::run)) {
            AtomicInteger completions = new AtomicInteger();
            purgatory.watch(List.of(TP), 100, 60_000, () -> true, completions::incrementAndGet);
            purgatory.onAppend(OTHER, 1000);
            purgatory.onAppend(TP, 60);
            assertThat(completions).hasValue(0);
            purgatory.onAppend(TP, 40);
            purgatory.onAppend(TP, 40);
            assertThat(completions).hasValue(1);
        }
    }

    @Test
    void aWaitingFetchCompletesAtItsDeadlineWithoutData() {
        try (FetchPurgatory purgatory = new FetchPurgatory(Runnable::run)) {
            AtomicInteger completions = new AtomicInteger();
            purgatory.watch(List.of(TP), 1, 50, () -> true, completions::incrementAndGet);
            await().atMost(Duration.ofSeconds(5)).until(() -> completions.get() == 1);
        }
    }

    @Test
    void anAppendThatRacedTheRegistrationCompletesTheFetchAtOnce() {
        try (FetchPurgatory purgatory = new FetchPurgatory(Runnable::run)) {
            AtomicInteger completions = new AtomicInteger();
            purgatory.watch(List.of(TP), 1000, 60_000, () -> false, completions::incrementAndGet);
            assertThat(completions).hasValue(1);
            purgatory.onAppend(TP, 5000);
            assertThat(completions).hasValue(1);
        }
    }
}
