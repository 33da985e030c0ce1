package io.varve.metadata.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SnapshotPolicyTest {

    @Test
    void aSnapshotIsDueOnceTheCommittedBytesReachTheLimit() {
        SnapshotPolicy policy = new SnapshotPolicy(1000, 0, 0);
        policy.committed(999);
        assertThat(policy.due(0)).isFalse();
        policy.committed(1);
        assertThat(policy.due(0)).isTrue();

        policy.reset(5);
        assertThat(policy.due(5)).isFalse();
        assertThat(policy.bytesSinceLast()).isZero();
    }

    @Test
    void theIntervalTriggersOnlyWhenSomethingWasCommittedSinceTheLastSnapshot() {
        SnapshotPolicy policy = new SnapshotPolicy(Long.MAX_VALUE, 60_000, 1_000);
        assertThat(policy.due(61_000)).isFalse(); // nothing new
        policy.committed(10);
        assertThat(policy.due(60_999)).isFalse();
        assertThat(policy.msUntilInterval(60_999)).isEqualTo(1);
        assertThat(policy.due(61_000)).isTrue();
    }

    @Test
    void anIntervalOfZeroTurnsTheTimeTriggerOff() {
        SnapshotPolicy policy = new SnapshotPolicy(Long.MAX_VALUE, 0, 0);
        policy.committed(10);
        assertThat(policy.due(Long.MAX_VALUE / 2)).isFalse();
        assertThat(policy.msUntilInterval(0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void limitsOutsideKafkasRangesAreRefused() {
        assertThatThrownBy(() -> new SnapshotPolicy(0, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SnapshotPolicy(1, -1, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
