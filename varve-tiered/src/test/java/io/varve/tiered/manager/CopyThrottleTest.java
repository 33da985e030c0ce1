package io.varve.tiered.manager;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CopyThrottleTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aBurstUpToOneSecondOfBytesPassesThenCallersWaitForTheDebt() {
        CopyThrottle throttle = new CopyThrottle(1000, () -> 0L);

        assertThat(throttle.reserve(1000, 0)).isZero();
        assertThat(throttle.reserve(500, 0)).isEqualTo(SECOND / 2);
        assertThat(throttle.reserve(500, 0)).as("queues behind the debt").isEqualTo(SECOND);
    }

    @Test
    void theLongRunRateNeverExceedsTheLimit() {
        CopyThrottle throttle = new CopyThrottle(1_000_000, () -> 0L);
        long nowNanos = 0;
        long bytes = 0;
        for (int i = 0; i < 100; i++) {
            nowNanos += throttle.reserve(64_000, nowNanos); // the caller sleeps as told, then uploads
            bytes += 64_000;
        }
        // 6.4 MB at 1 MB/s with a 1 MB initial burst: at least 5.4 s
        assertThat(nowNanos).isGreaterThanOrEqualTo((bytes - 1_000_000) * SECOND / 1_000_000 - 1);
    }

    @Test
    void idleTimeRefillsAtMostOneSecondOfBytes() {
        CopyThrottle throttle = new CopyThrottle(1000, () -> 0L);
        throttle.reserve(1000, 0);

        assertThat(throttle.reserve(1000, 100 * SECOND)).isZero();
        assertThat(throttle.reserve(1, 100 * SECOND)).isPositive();
    }

    @Test
    void unlimitedNeverWaits() {
        CopyThrottle throttle = new CopyThrottle(CopyThrottle.UNLIMITED, () -> 0L);
        assertThat(throttle.reserve(Long.MAX_VALUE / 2, 0)).isZero();
    }
}
