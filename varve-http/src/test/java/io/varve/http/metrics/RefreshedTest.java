package io.varve.http.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RefreshedTest {
    private long nowNanos = 1_000;

    @Test
    void theValueIsComputedOnceAndAgainOnlyAtTheFirstReadAfterTheIntervalHasPassed() {
        AtomicInteger computations = new AtomicInteger();
        Refreshed<Integer> value = new Refreshed<>(computations::incrementAndGet, 10_000, () -> nowNanos);
        assertThat(value.get()).isEqualTo(1);
        nowNanos += TimeUnit.MILLISECONDS.toNanos(9_999);
        assertThat(value.get()).as("younger than the interval").isEqualTo(1);
        nowNanos += TimeUnit.MILLISECONDS.toNanos(1);
        assertThat(value.get()).as("as old as the interval").isEqualTo(2);
        assertThat(value.get()).isEqualTo(2);
        nowNanos += TimeUnit.HOURS.toNanos(1);
        assertThat(value.get())
                .as("nothing ran while nobody read: one computation")
                .isEqualTo(3);
        assertThat(computations).hasValue(3);
    }

    @Test
    void anIntervalOfZeroComputesAtEveryRead() {
        AtomicInteger computations = new AtomicInteger();
        Refreshed<Integer> value = new Refreshed<>(computations::incrementAndGet, 0, () -> nowNanos);
        assertThat(value.get()).isEqualTo(1);
        assertThat(value.get()).isEqualTo(2);
    }

    @Test
    void aNegativeIntervalIsRefused() {
        assertThatThrownBy(() -> new Refreshed<>(() -> 1, -1, () -> nowNanos))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
