package io.varve.http.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LagHistoryTest {
    @Test
    void keepsAtMostAnHourOfSamplesAtTheirPeriodAndForgetsGroupsThatWent() {
        LagHistory h = new LagHistory(15_000);
        for (int i = 0; i < LagHistory.MAX_SAMPLES + 10; i++) {
            h.add(i * 15_000L, Map.of("g", (long) i));
            h.add(i * 15_000L + 5_000, Map.of("g", -1L)); // too close to the last one: dropped
        }
        assertThat(h.samples("g")).hasSize(LagHistory.MAX_SAMPLES);
        assertThat(h.samples("g").get(0).lag()).isEqualTo(10);
        h.add(10_000_000L, Map.of("other", 1L));
        assertThat(h.samples("g")).isEmpty();
        assertThat(h.samples("other")).hasSize(1);
    }
}
