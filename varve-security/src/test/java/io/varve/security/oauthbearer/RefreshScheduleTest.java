package io.varve.security.oauthbearer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Kafka's sasl.login.refresh.* rules for when the broker's own login fetches its next token. */
class RefreshScheduleTest {
    private static final long HOUR_MS = 3_600_000;

    @Test
    void aLongLivedTokenIsRefreshedAtTheWindowFactorPlusJitter() {
        RefreshSchedule schedule = RefreshSchedule.DEFAULTS;
        assertThat(schedule.refreshAtMs(0, HOUR_MS, 0.0)).isEqualTo((long) (HOUR_MS * 0.8));
        assertThat(schedule.refreshAtMs(0, HOUR_MS, 0.999))
                .isBetween((long) (HOUR_MS * 0.849), (long) (HOUR_MS * 0.85));
    }

    @Test
    void theBufferMovesTheRefreshEarlierAndTheMinimumPeriodLater() {
        // 10 minutes: 80 % is 8 minutes, but 5 minutes of buffer before expiry ask for 5 minutes at the latest
        RefreshSchedule schedule = RefreshSchedule.DEFAULTS;
        assertThat(schedule.refreshAtMs(0, 600_000, 0.0)).isEqualTo(300_000);
        // a 2-minute minimum period keeps it from coming sooner, if both fit in the lifetime
        RefreshSchedule slow = new RefreshSchedule(0.5, 0.0, 420_000, 120_000, 100, 10_000);
        assertThat(slow.refreshAtMs(0, 600_000, 0.0)).isEqualTo(420_000);
    }

    @Test
    void aShortLivedTokenIgnoresTheBufferAndMinimumPeriod() {
        // 20 s of lifetime is less than 60 s + 300 s: both are ignored, 80 % it is
        assertThat(RefreshSchedule.DEFAULTS.refreshAtMs(1_000, 21_000, 0.0)).isEqualTo(17_000);
        assertThat(RefreshSchedule.DEFAULTS.refreshAtMs(5_000, 4_000, 0.5)).isEqualTo(5_000);
    }

    @Test
    void failedFetchesBackOffExponentiallyUpToTheMaximum() {
        RefreshSchedule schedule = RefreshSchedule.DEFAULTS;
        assertThat(schedule.retryDelayMs(1)).isEqualTo(100);
        assertThat(schedule.retryDelayMs(2)).isEqualTo(200);
        assertThat(schedule.retryDelayMs(5)).isEqualTo(1_600);
        assertThat(schedule.retryDelayMs(50)).isEqualTo(10_000);
    }

    @Test
    void valuesOutsideKafkasRangesAreRefused() {
        assertThatThrownBy(() -> new RefreshSchedule(0.4, 0.05, 0, 0, 100, 10_000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RefreshSchedule(0.8, 0.3, 0, 0, 100, 10_000))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RefreshSchedule(0.8, 0.05, 0, 0, 100, 10))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
