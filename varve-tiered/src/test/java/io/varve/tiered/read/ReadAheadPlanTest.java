package io.varve.tiered.read;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ReadAheadPlanTest {
    private static final int CHUNK = 100;

    @Test
    void inTheMiddleOfASegmentTheChunkOfTheNextReadAndDepthChunksAfterItAreLoaded() {
        assertThat(ReadAheadPlan.of(150, 1000, CHUNK, 4)).isEqualTo(new ReadAheadPlan(1, 5, 0));
    }

    @Test
    void aWindowPassingTheSegmentsEndContinuesWithTheNextSegmentsFirstChunks() {
        // 4 chunks (the last one 50 bytes); the next read starts in chunk 2: chunks 2 and 3 here, 3 in the next
        assertThat(ReadAheadPlan.of(250, 350, CHUNK, 4)).isEqualTo(new ReadAheadPlan(2, 3, 3));
    }

    @Test
    void atTheSegmentsEndTheWholeWindowIsInTheNextSegment() {
        assertThat(ReadAheadPlan.of(350, 350, CHUNK, 4)).isEqualTo(new ReadAheadPlan(0, -1, 5));
    }

    @Test
    void depthZeroLoadsOnlyTheChunkTheNextReadStartsIn() {
        assertThat(ReadAheadPlan.of(99, 1000, CHUNK, 0)).isEqualTo(new ReadAheadPlan(0, 0, 0));
        assertThat(ReadAheadPlan.of(100, 1000, CHUNK, 0)).isEqualTo(new ReadAheadPlan(1, 1, 0));
    }

    @Test
    void aNegativeDepthOrPositionIsRefused() {
        assertThatThrownBy(() -> ReadAheadPlan.of(0, 100, CHUNK, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadAheadPlan.of(-1, 100, CHUNK, 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
