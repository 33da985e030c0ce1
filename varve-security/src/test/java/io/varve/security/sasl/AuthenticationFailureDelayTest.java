package io.varve.security.sasl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AuthenticationFailureDelayTest {
    private final AtomicLong nowMs = new AtomicLong(1_000);

    @Test
    void repeatedFailuresOfOneAddressWaitLongerUpToACap() {
        AuthenticationFailureDelay delay = new AuthenticationFailureDelay(100, 10, nowMs::get);
        assertThat(delay.onFailure("10.0.0.1")).isEqualTo(100);
        assertThat(delay.onFailure("10.0.0.1")).isEqualTo(200);
        assertThat(delay.onFailure("10.0.0.1")).isEqualTo(400);
        for (int i = 0; i < 10; i++) {
            delay.onFailure("10.0.0.1");
        }
        assertThat(delay.onFailure("10.0.0.1")).isEqualTo(3_200);
        assertThat(delay.onFailure("10.0.0.2")).as("another address").isEqualTo(100);
    }

    @Test
    void aQuietMinuteOrASuccessForgetsTheFailures() {
        AuthenticationFailureDelay delay = new AuthenticationFailureDelay(100, 10, nowMs::get);
        delay.onFailure("a");
        delay.onFailure("a");
        nowMs.addAndGet(AuthenticationFailureDelay.FORGET_AFTER_MS + 1);
        assertThat(delay.onFailure("a")).isEqualTo(100);
        delay.onFailure("a");
        delay.onSuccess("a");
        assertThat(delay.onFailure("a")).isEqualTo(100);
    }

    @Test
    void theTableIsBoundedAndZeroMeansNoDelay() {
        AuthenticationFailureDelay delay = new AuthenticationFailureDelay(100, 2, nowMs::get);
        delay.onFailure("a");
        delay.onFailure("a");
        delay.onFailure("b");
        delay.onFailure("c");
        assertThat(delay.onFailure("a")).as("a was forgotten").isEqualTo(100);
        assertThat(new AuthenticationFailureDelay(0, 2, nowMs::get).onFailure("a"))
                .isZero();
    }
}
