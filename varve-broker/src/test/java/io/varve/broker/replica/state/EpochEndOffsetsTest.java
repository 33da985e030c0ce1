package io.varve.broker.replica.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.epoch.EpochEndOffset;
import org.junit.jupiter.api.Test;

class EpochEndOffsetsTest {
    @Test
    void aFollowerWhoseLastEpochEndsPastItsFetchOffsetHasNotDiverged() {
        assertThat(EpochEndOffsets.divergence(new EpochEndOffset(3, 100), 3, 80))
                .isNull();
        assertThat(EpochEndOffsets.divergence(new EpochEndOffset(3, 100), 3, 100))
                .isNull();
    }

    @Test
    void aFollowerPastTheEndOfItsEpochAtTheLeaderTruncatesToThatEnd() {
        assertThat(EpochEndOffsets.divergence(new EpochEndOffset(3, 100), 3, 120))
                .isEqualTo(new EpochEndOffset(3, 100));
    }

    @Test
    void anEpochTheLeaderNeverHadPointsToTheLargestEpochBelowIt() {
        assertThat(EpochEndOffsets.divergence(new EpochEndOffset(2, 90), 3, 95)).isEqualTo(new EpochEndOffset(2, 90));
    }

    @Test
    void aFollowerWithoutEpochsIsNotChecked() {
        assertThat(EpochEndOffsets.divergence(EpochEndOffset.UNDEFINED, -1, 0)).isNull();
    }
}
