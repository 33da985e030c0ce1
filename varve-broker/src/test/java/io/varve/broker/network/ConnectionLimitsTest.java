package io.varve.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectionLimitsTest {

    @Test
    void eachAddressHasItsLimitOverridesWinAndTheTotalCapsEveryone() throws Exception {
        InetAddress one = InetAddress.getByName("10.0.0.1");
        InetAddress two = InetAddress.getByName("10.0.0.2");
        InetAddress three = InetAddress.getByName("10.0.0.3");
        ConnectionLimits limits = new ConnectionLimits(4, 1, Map.of(two, 2));
        assertThat(limits.tryAcquire(one)).isTrue();
        assertThat(limits.tryAcquire(one)).isFalse();
        assertThat(limits.addressAtLimit(one)).isTrue();
        assertThat(limits.tryAcquire(two)).isTrue();
        assertThat(limits.tryAcquire(two)).isTrue();
        assertThat(limits.tryAcquire(two)).isFalse();
        assertThat(limits.tryAcquire(three)).isTrue();
        assertThat(limits.full()).isTrue();
        assertThat(limits.tryAcquire(InetAddress.getByName("10.0.0.4")))
                .as("the total")
                .isFalse();
        limits.release(one);
        assertThat(limits.full()).isFalse();
        assertThat(limits.tryAcquire(one)).isTrue();
        assertThatThrownBy(() -> limits.release(InetAddress.getByName("10.0.0.9")))
                .isInstanceOf(IllegalStateException.class);
    }
}
