package io.varve.metadata.controller.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BrokerHeartbeatsTest {
    private static final long SESSION_TIMEOUT_MS = 9_000;
    private static final long GRACE_MS = 3_000;

    private final BrokerHeartbeats heartbeats = new BrokerHeartbeats(SESSION_TIMEOUT_MS);

    @Test
    void aBrokerIsExpiredAfterTheSessionTimeoutWithoutHeartbeats() {
        heartbeats.registered(1, 0, 1_000);
        assertThat(heartbeats.expired(List.of(1), 1_000 + SESSION_TIMEOUT_MS)).isEmpty();
        assertThat(heartbeats.expired(List.of(1), 1_001 + SESSION_TIMEOUT_MS)).containsExactly(1);
    }

    @Test
    void aBrokerWhoseConnectionClosedIsExpiredAfterTheGraceNotTheSessionTimeout() {
        heartbeats.registered(1, 0, 1_000);
        heartbeats.registered(2, 0, 1_000);
        assertThat(heartbeats.connectionLost(1, 2_000, GRACE_MS)).isTrue();
        assertThat(heartbeats.expired(List.of(1, 2), 2_000 + GRACE_MS)).isEmpty();
        assertThat(heartbeats.expired(List.of(1, 2), 2_001 + GRACE_MS)).containsExactly(1);
        assertThat(heartbeats.hasLiveSession(1, 2_001 + GRACE_MS)).isFalse();
        assertThat(heartbeats.hasLiveSession(2, 2_001 + GRACE_MS)).isTrue();
    }

    @Test
    void aHeartbeatAfterTheConnectionClosedKeepsTheSession() {
        heartbeats.registered(1, 0, 1_000);
        heartbeats.connectionLost(1, 2_000, GRACE_MS);
        heartbeats.heartbeat(1, 5, 2_500);
        assertThat(heartbeats.expired(List.of(1), 2_001 + GRACE_MS)).isEmpty();
        assertThat(heartbeats.expired(List.of(1), 2_500 + SESSION_TIMEOUT_MS + 1))
                .containsExactly(1);
    }

    @Test
    void aConnectionLossNeverLengthensASessionNorTouchesAnUnknownBroker() {
        heartbeats.registered(1, 0, 1_000);
        assertThat(heartbeats.connectionLost(1, 1_000 + SESSION_TIMEOUT_MS - 1_000, GRACE_MS))
                .as("the session ends before the grace would")
                .isFalse();
        assertThat(heartbeats.connectionLost(7, 2_000, GRACE_MS)).isFalse();
        assertThat(heartbeats.connectionLost(1, 2_000, GRACE_MS)).isTrue();
        assertThat(heartbeats.connectionLost(1, 2_500, GRACE_MS))
                .as("a later loss does not move the deadline")
                .isFalse();
    }
}
