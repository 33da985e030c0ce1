package io.varve.broker.replica.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ReplicationThrottlesTest {
    private final AtomicLong nowMs = new AtomicLong();
    private final ReplicationThrottles throttles = new ReplicationThrottles(1, nowMs::get);
    private final TopicPartition moved = new TopicPartition("moved", 0);
    private final TopicPartition other = new TopicPartition("moved", 1);

    @Test
    void onlyListedReplicasAreThrottledAndOnlyOnceTheirQuotaIsSpent() {
        throttles.update(
                Map.of(ReplicationThrottles.LEADER_RATE, "1000"),
                Map.of(),
                Map.of("moved", Map.of(ReplicationThrottles.LEADER_REPLICAS, "0:1,1:2")));

        assertThat(throttles.leaderMustWait(moved)).isFalse();
        throttles.leaderSent(moved, 2_000);
        throttles.leaderSent(other, 1_000_000); // partition 1 is throttled on broker 2, not here

        assertThat(throttles.leaderMustWait(moved)).isTrue();
        assertThat(throttles.leaderMustWait(other)).isFalse();
        nowMs.set(2_000);
        assertThat(throttles.leaderMustWait(moved)).isFalse();
    }

    @Test
    void theClusterDefaultRateAppliesWhenTheBrokerHasNoneAndUnsetMeansUnlimited() {
        throttles.update(
                Map.of(),
                Map.of(ReplicationThrottles.FOLLOWER_RATE, "500"),
                Map.of("moved", Map.of(ReplicationThrottles.FOLLOWER_REPLICAS, "*")));
        throttles.followerFetched(moved, 1_000);
        assertThat(throttles.followerMustWait(moved)).isTrue();
        assertThat(throttles.followerWaitMs()).isEqualTo(2_000);

        throttles.update(Map.of(), Map.of(), Map.of("moved", Map.of(ReplicationThrottles.FOLLOWER_REPLICAS, "*")));

        assertThat(throttles.followerMustWait(moved)).isFalse();
    }

    @Test
    void removingTheReplicaListEndsTheThrottle() {
        throttles.update(
                Map.of(ReplicationThrottles.LEADER_RATE, "1"),
                Map.of(),
                Map.of("moved", Map.of(ReplicationThrottles.LEADER_REPLICAS, "*")));
        throttles.leaderSent(moved, 1_000);
        assertThat(throttles.leaderMustWait(moved)).isTrue();

        throttles.update(Map.of(ReplicationThrottles.LEADER_RATE, "1"), Map.of(), Map.of("moved", Map.of()));

        assertThat(throttles.leaderMustWait(moved)).isFalse();
    }
}
