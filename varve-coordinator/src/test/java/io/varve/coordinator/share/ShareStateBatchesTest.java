package io.varve.coordinator.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShareStateBatchesTest {
    private static SharePartition.StateBatch b(long first, long last, RecordState state, int count) {
        return new SharePartition.StateBatch(first, last, state, count);
    }

    @Test
    void aWrittenBatchReplacesTheOverlappedPartOfAStoredOne() {
        List<SharePartition.StateBatch> merged = ShareStateBatches.merge(
                List.of(b(10, 19, RecordState.AVAILABLE, 1)), List.of(b(12, 14, RecordState.ACKNOWLEDGED, 1)), 10);
        assertThat(merged)
                .containsExactly(
                        b(10, 11, RecordState.AVAILABLE, 1),
                        b(12, 14, RecordState.ACKNOWLEDGED, 1),
                        b(15, 19, RecordState.AVAILABLE, 1));
    }

    @Test
    void offsetsBelowTheStartOffsetAreDroppedAndEqualNeighboursJoin() {
        List<SharePartition.StateBatch> merged = ShareStateBatches.merge(
                List.of(b(0, 4, RecordState.ACKNOWLEDGED, 1), b(5, 9, RecordState.AVAILABLE, 2)),
                List.of(b(10, 12, RecordState.AVAILABLE, 2)),
                3);
        assertThat(merged).containsExactly(b(3, 4, RecordState.ACKNOWLEDGED, 1), b(5, 12, RecordState.AVAILABLE, 2));
    }

    @Test
    void aFullSnapshotWrittenOverItsPredecessorIsTheSnapshot() {
        List<SharePartition.StateBatch> before = List.of(b(0, 9, RecordState.AVAILABLE, 1));
        List<SharePartition.StateBatch> after = List.of(
                b(2, 5, RecordState.ARCHIVED, 3),
                b(6, 9, RecordState.AVAILABLE, 1),
                b(10, 11, RecordState.AVAILABLE, 1));
        assertThat(ShareStateBatches.merge(before, after, 2))
                .containsExactly(b(2, 5, RecordState.ARCHIVED, 3), b(6, 11, RecordState.AVAILABLE, 1));
    }

    @Test
    void withinOneWriteTheLaterOfTwoOverlappingBatchesWins() {
        List<SharePartition.StateBatch> merged = ShareStateBatches.merge(
                List.of(), List.of(b(0, 9, RecordState.AVAILABLE, 1), b(3, 3, RecordState.ARCHIVED, 2)), 0);
        assertThat(merged)
                .containsExactly(
                        b(0, 2, RecordState.AVAILABLE, 1),
                        b(3, 3, RecordState.ARCHIVED, 2),
                        b(4, 9, RecordState.AVAILABLE, 1));
    }
}
