package io.varve.tiered.manager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RetryBackoffTest {

    @Test
    void delayDoublesPerFailureUpToTheMaximum() {
        RetryBackoff backoff = new RetryBackoff(500, 30_000, 0);

        assertThat(backoff.delayMs(1, 0.5)).isEqualTo(500);
        assertThat(backoff.delayMs(2, 0.5)).isEqualTo(1000);
        assertThat(backoff.delayMs(4, 0.5)).isEqualTo(4000);
        assertThat(backoff.delayMs(7, 0.5)).isEqualTo(30_000);
        assertThat(backoff.delayMs(1_000, 0.5)).isEqualTo(30_000);
    }

    @Test
    void jitterSpreadsTheDelayWithinItsFractionButNeverPastTheMaximum() {
        RetryBackoff backoff = new RetryBackoff(1000, 30_000, 0.2);

        assertThat(backoff.delayMs(1, 0.0)).isEqualTo(800);
        assertThat(backoff.delayMs(1, 0.999_999)).isBetween(1199L, 1200L);
        assertThat(backoff.delayMs(20, 0.999_999)).isEqualTo(30_000);
    }

    @Test
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> new RetryBackoff(0, 10, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryBackoff(10, 5, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryBackoff(10, 20, 1.0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryBackoff(10, 20, 0).delayMs(0, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
