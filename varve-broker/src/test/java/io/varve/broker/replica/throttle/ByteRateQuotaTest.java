package io.varve.broker.replica.throttle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ByteRateQuotaTest {
    private static final long RATE = 1_000; // bytes per second

    @Test
    void aTransferIsAllowedUntilItsBytesArePaidOffAtTheRate() {
        ByteRateQuota quota = new ByteRateQuota();
        assertThat(quota.exceeded(RATE, 0)).isFalse();

        quota.record(500, RATE, 0);

        assertThat(quota.exceeded(RATE, 0)).isTrue();
        assertThat(quota.waitMs(RATE, 0)).isEqualTo(500);
        assertThat(quota.exceeded(RATE, 499)).isTrue();
        assertThat(quota.exceeded(RATE, 500)).isFalse();
    }

    @Test
    void aTransferLoopThatWaitsForTheQuotaMovesBytesAtTheRate() {
        ByteRateQuota quota = new ByteRateQuota();
        long moved = 0;
        for (long nowMs = 0; nowMs < 60_000; nowMs += 10) { // a fetcher asking every 10 ms for a minute
            if (!quota.exceeded(RATE, nowMs)) {
                quota.record(300, RATE, nowMs);
                moved += 300;
            }
        }
        // 60 s at 1,000 B/s, within one transfer of overshoot and the 10 ms polling granularity
        assertThat(moved).isBetween(57_000L, 60_300L);
    }

    @Test
    void aPauseSavesNoCreditForABurstAfterwards() {
        ByteRateQuota quota = new ByteRateQuota();
        quota.record(100, RATE, 0);

        assertThat(quota.exceeded(RATE, 100_000)).isFalse();
        quota.record(2_000, RATE, 100_000);

        assertThat(quota.exceeded(RATE, 101_000)).isTrue();
        assertThat(quota.exceeded(RATE, 102_000)).isFalse();
    }

    @Test
    void anUnlimitedRateIsNeverExceededAndALowerRateAppliesFromItsChange() {
        ByteRateQuota quota = new ByteRateQuota();
        quota.record(1_000_000, ByteRateQuota.UNLIMITED, 0);
        assertThat(quota.exceeded(ByteRateQuota.UNLIMITED, 0)).isFalse();

        quota.record(1_000, 100, 0);

        assertThat(quota.exceeded(100, 9_000)).isTrue();
        assertThat(quota.exceeded(100, 10_000)).isFalse();
    }

    @Test
    void aZeroRateStopsThrottledTransfersOnceAnythingMoved() {
        ByteRateQuota quota = new ByteRateQuota();
        quota.record(1, 0, 0);

        assertThat(quota.exceeded(0, 1_000_000)).isTrue();
        assertThat(quota.waitMs(0, 1_000_000)).isEqualTo(Long.MAX_VALUE);
    }
}
