package io.varve.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DeleteRecordsPurgatoryTest {
    private static final TopicPartition A = new TopicPartition("t", 0);
    private static final TopicPartition B = new TopicPartition("t", 1);

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final DeleteRecordsPurgatory purgatory = new DeleteRecordsPurgatory(timer, 10);
    private final Map<TopicPartition, Long> low = new ConcurrentHashMap<>();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private long lowWatermark(TopicPartition tp) {
        Long l = low.get(tp);
        if (l == null) {
            throw new NotLeaderOrFollowerException("not led here");
        }
        return l;
    }

    @Test
    void theAnswerWaitsUntilEveryPartitionsLowWatermarkReachesItsTarget() throws Exception {
        low.put(A, 0L);
        low.put(B, 0L);
        CompletableFuture<Map<TopicPartition, DeleteRecordsPurgatory.Outcome>> f =
                purgatory.await(Map.of(A, 10L, B, 20L), this::lowWatermark, 60_000);

        low.put(A, 10L);
        purgatory.check(A);
        assertThat(f).isNotDone();
        low.put(B, 25L);
        purgatory.check(B);

        Map<TopicPartition, DeleteRecordsPurgatory.Outcome> outcomes = f.get(5, TimeUnit.SECONDS);
        assertThat(outcomes.get(A).lowWatermark()).isEqualTo(10);
        assertThat(outcomes.get(B).lowWatermark()).isEqualTo(25);
        assertThat(outcomes.get(A).error()).isNull();
        assertThat(purgatory.size()).isZero();
    }

    @Test
    void aPartitionShortOfItsTargetAtTheTimeoutFailsWithTheLowWatermarkReached() throws Exception {
        low.put(A, 3L);

        Map<TopicPartition, DeleteRecordsPurgatory.Outcome> outcomes =
                purgatory.await(Map.of(A, 10L), this::lowWatermark, 50).get(5, TimeUnit.SECONDS);

        assertThat(outcomes.get(A).lowWatermark()).isEqualTo(3);
        assertThat(outcomes.get(A).error()).isInstanceOf(TimeoutException.class);
    }

    @Test
    void aPartitionNoLongerLedHereIsAnsweredWithItsErrorAndDoesNotHoldTheOthers() throws Exception {
        low.put(A, 10L);

        Map<TopicPartition, DeleteRecordsPurgatory.Outcome> outcomes = purgatory
                .await(Map.of(A, 10L, B, 5L), this::lowWatermark, 60_000)
                .get(5, TimeUnit.SECONDS);

        assertThat(outcomes.get(A).error()).isNull();
        assertThat(outcomes.get(B).error()).isInstanceOf(NotLeaderOrFollowerException.class);
    }
}
