package io.varve.broker.replica.fetcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class FollowerCatchUpTest {
    private final AtomicLong nowMs = new AtomicLong(0);
    private final List<String> lines = new ArrayList<>();
    private final FollowerCatchUp catchUp = new FollowerCatchUp(2, nowMs::get, 5_000, lines::add);
    private final TopicPartition tp = new TopicPartition("orders", 0);

    @Test
    void aFollowerFarBehindReportsItsProgressTowardsTheMovingHighWatermarkUntilCaughtUp() {
        catchUp.fetched(tp, 1_000, 11_000);
        nowMs.set(5_000);
        catchUp.fetched(tp, 6_000, 21_000); // the leader appended 10,000 meanwhile
        assertThat(lines)
                .containsExactly(
                        "Follower of orders-0 catching up with leader 2: 5,000 of 20,000 offsets (25%), 1,000 offsets/s,"
                                + " about 15 s left");
        nowMs.set(9_000);
        catchUp.fetched(tp, 21_000, 21_000);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1))
                .startsWith("Follower of orders-0 catching up with leader 2: done, 20,000 offsets in 9 s");
        assertThat(catchUp.behindCount()).isZero();
    }

    @Test
    void aFollowerThatCatchesUpWithinOneIntervalWritesNothingAndKeepsNoEntry() {
        catchUp.fetched(tp, 10, 20);
        nowMs.set(100);
        catchUp.fetched(tp, 20, 20);
        assertThat(lines).isEmpty();
        assertThat(catchUp.behindCount()).isZero();
    }

    @Test
    void aFollowerAtTheHighWatermarkIsNotTracked() {
        catchUp.fetched(tp, 50, 50);
        assertThat(catchUp.behindCount()).isZero();
    }
}
