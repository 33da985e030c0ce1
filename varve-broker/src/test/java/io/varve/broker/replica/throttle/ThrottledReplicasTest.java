package io.varve.broker.replica.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ThrottledReplicasTest {
    @Test
    void aListThrottlesThePartitionsNamedWithThisBrokersId() {
        ThrottledReplicas t = ThrottledReplicas.parse("0:101, 1:102,2:101", 101);

        assertThat(t.contains(0)).isTrue();
        assertThat(t.contains(2)).isTrue();
        assertThat(t.contains(1)).isFalse();
    }

    @Test
    void aStarThrottlesEveryPartitionAndNothingThrottlesNone() {
        assertThat(ThrottledReplicas.parse("*", 7).contains(42)).isTrue();
        assertThat(ThrottledReplicas.parse(null, 7)).isEqualTo(ThrottledReplicas.NONE);
        assertThat(ThrottledReplicas.parse("", 7)).isEqualTo(ThrottledReplicas.NONE);
        assertThat(ThrottledReplicas.parse("0:8", 7)).isEqualTo(ThrottledReplicas.NONE);
    }

    @Test
    void entriesThatDoNotParseThrottleNothing() {
        ThrottledReplicas t = ThrottledReplicas.parse("x:1,3,4:y,5:1", 1);

        assertThat(t.partitions()).containsExactly(5);
    }
}
