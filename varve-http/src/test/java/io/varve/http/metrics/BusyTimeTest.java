package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BusyTimeTest {
    @Test
    void idleRatioIsTheShareOfThreadTimeNotReportedBusySinceThePreviousSample() {
        BusyTime pool = new BusyTime(2);
        assertThat(pool.idleRatioSince(1_000)).as("nothing measured yet").isEqualTo(1.0);
        pool.busy(500);
        pool.busy(1_000);
        // 1,000 ns elapsed on 2 threads: 2,000 ns of thread time, 1,500 busy
        assertThat(pool.idleRatioSince(2_000)).isCloseTo(0.25, within(1e-9));
        assertThat(pool.idleRatioSince(3_000))
                .as("idle since the previous sample")
                .isEqualTo(1.0);
    }

    @Test
    void overReportedBusyTimeIsCappedAtFullyBusy() {
        BusyTime pool = new BusyTime(1);
        pool.idleRatioSince(0);
        pool.busy(5_000);
        assertThat(pool.idleRatioSince(1_000)).isZero();
    }

    @Test
    void aPoolWhoseSizeIsUnknownReadsAsIdle() {
        BusyTime pool = new BusyTime(0);
        pool.idleRatioSince(0);
        pool.busy(100);
        assertThat(pool.idleRatioSince(1_000)).isEqualTo(1.0);
        pool.threads(1);
        pool.busy(250);
        assertThat(pool.idleRatioSince(2_000)).isCloseTo(0.75, within(1e-9));
    }
}
