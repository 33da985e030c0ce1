package io.varve.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.cleaner.SegmentGroups.Input;
import java.util.List;
import org.junit.jupiter.api.Test;

class SegmentGroupsTest {

    @Test
    void consecutiveSegmentsMergeWhileTheirBytesFitASegment() {
        List<Input> inputs = List.of(
                new Input(0, 10, 300),
                new Input(10, 20, 300),
                new Input(20, 30, 500),
                new Input(30, 40, 2000),
                new Input(40, 50, 100));
        assertThat(SegmentGroups.bySize(inputs, 1000))
                .containsExactly(List.of(0, 1), List.of(2), List.of(3), List.of(4));
        assertThat(SegmentGroups.bySize(inputs, 1100)).containsExactly(List.of(0, 1, 2), List.of(3), List.of(4));
    }

    @Test
    void aGroupNeverSpansMoreOffsetsThanItsIndexesCanAddress() {
        long limit = (long) Integer.MAX_VALUE + 1; // offsets [0, limit) are the most one base can index
        List<Input> inputs = List.of(new Input(0, 100, 1), new Input(100, limit, 1), new Input(limit, limit + 50, 1));
        assertThat(SegmentGroups.bySize(inputs, 1000)).containsExactly(List.of(0, 1), List.of(2));
    }
}
