package io.varve.http.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ThroughputHistoryTest {
    @Test
    void ratesAreTheCounterDifferencesPerSecondPerTopicAndSummedForTheBroker() {
        ThroughputHistory h = new ThroughputHistory(14_000);
        h.add(0, Map.of("a", new long[] {1000, 0}, "b", new long[] {0, 0}));
        assertThat(h.series()).as("one sample gives no rate yet").isEmpty();
        h.add(15_000, Map.of("a", new long[] {21_000, 5000}, "b", new long[] {10_000, 0}));
        assertThat(h.samples("a"))
                .containsExactly(new ThroughputHistory.Sample(15_000, 2000.0 * 10 / 15, 500.0 * 10 / 15));
        assertThat(h.samples("b")).containsExactly(new ThroughputHistory.Sample(15_000, 10_000 / 15.0, 0));
        assertThat(h.samples(ThroughputHistory.BROKER))
                .containsExactly(new ThroughputHistory.Sample(15_000, 30_000 / 15.0, 5000 / 15.0));
    }

    @Test
    void aSampleTooSoonAfterThePreviousIsNotTaken() {
        ThroughputHistory h = new ThroughputHistory(14_000);
        h.add(0, Map.of("a", new long[] {0, 0}));
        h.add(5_000, Map.of("a", new long[] {5_000, 0}));
        h.add(20_000, Map.of("a", new long[] {20_000, 0}));
        assertThat(h.samples("a")).containsExactly(new ThroughputHistory.Sample(20_000, 1000, 0));
    }

    @Test
    void aDeletedTopicLeavesTheChartsAndEachRingHoldsAnHour() {
        ThroughputHistory h = new ThroughputHistory(14_000);
        for (int i = 0; i <= ThroughputHistory.MAX_SAMPLES + 5; i++) {
            h.add(
                    i * 15_000L,
                    i < 10 ? Map.of("a", new long[] {i, i}, "b", new long[] {i, i}) : Map.of("a", new long[] {i, i}));
        }
        assertThat(h.series()).containsExactlyInAnyOrder("a", ThroughputHistory.BROKER);
        assertThat(h.samples("a")).hasSize(ThroughputHistory.MAX_SAMPLES);
    }
}
