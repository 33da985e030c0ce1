package io.varve.raft.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class LeaderStateTest {

    @Test
    void singleVoterCommitsWhatItHasFlushed() {
        LeaderState leader = new LeaderState(1, 3, Set.of(1), 5, 5);

        assertThat(leader.updateEndOffset(1, 8)).isTrue();
        assertThat(leader.highWatermark()).isEqualTo(8);
    }

    @Test
    void highWatermarkIsTheOffsetAMajorityReached() {
        LeaderState leader = new LeaderState(1, 2, Set.of(1, 2, 3), 0, 0);

        assertThat(leader.updateEndOffset(1, 10)).isFalse();
        assertThat(leader.updateEndOffset(2, 4)).isTrue();
        assertThat(leader.highWatermark()).isEqualTo(4);
        assertThat(leader.updateEndOffset(3, 7)).isTrue();
        assertThat(leader.highWatermark()).isEqualTo(7);
    }

    @Test
    void entriesOfEarlierEpochsAreNotCommittedUntilOneOfTheLeadersOwnIs() {
        LeaderState leader = new LeaderState(1, 2, Set.of(1, 2, 3), 10, 6);

        assertThat(leader.updateEndOffset(2, 10)).isFalse();
        assertThat(leader.highWatermark()).isEqualTo(6);
        leader.updateEndOffset(1, 11);
        assertThat(leader.updateEndOffset(2, 11)).isTrue();
        assertThat(leader.highWatermark()).isEqualTo(11);
    }

    @Test
    void endOffsetOfAVoterNeverGoesBack() {
        LeaderState leader = new LeaderState(1, 2, Set.of(1, 2, 3), 0, 0);
        leader.updateEndOffset(2, 5);

        assertThatThrownBy(() -> leader.updateEndOffset(2, 4)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> leader.updateEndOffset(9, 4)).isInstanceOf(IllegalArgumentException.class);
    }
}
