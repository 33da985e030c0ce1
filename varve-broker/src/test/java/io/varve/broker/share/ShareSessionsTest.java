package io.varve.broker.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ShareSessionsTest {
    private static final Uuid TOPIC = Uuid.randomUuid();
    private static final SharePartitionKey P0 = new SharePartitionKey("g", TOPIC, 0);
    private static final SharePartitionKey P1 = new SharePartitionKey("g", TOPIC, 1);

    private final AtomicLong clock = new AtomicLong();
    private final ShareSessions sessions = new ShareSessions(2, 1000, clock::get);

    @Test
    void epochsMustFollowOneAnotherFromTheOpeningRequest() {
        assertThat(sessions.step("g", "a", 1, List.of(), List.of()).error()).isEqualTo(Errors.SHARE_SESSION_NOT_FOUND);
        assertThat(sessions.step("g", "a", 0, List.of(P0), List.of()).session().partitions())
                .containsExactly(P0);
        assertThat(sessions.step("g", "a", 2, List.of(), List.of()).error())
                .isEqualTo(Errors.INVALID_SHARE_SESSION_EPOCH);
        ShareSessions.Step next = sessions.step("g", "a", 1, List.of(P1), List.of(P0));
        assertThat(next.error()).isEqualTo(Errors.NONE);
        assertThat(next.session().partitions()).containsExactly(P1);
        assertThat(sessions.step("g", "a", 2, List.of(), List.of()).error()).isEqualTo(Errors.NONE);
    }

    @Test
    void closingReturnsTheSessionsPartitionsAndForgetsIt() {
        sessions.step("g", "a", 0, List.of(P0, P1), List.of());
        ShareSessions.Step closed = sessions.step("g", "a", -1, List.of(), List.of());
        assertThat(closed.session()).isNull();
        assertThat(closed.closedPartitions()).containsExactly(P0, P1);
        assertThat(sessions.has("g", "a")).isFalse();
    }

    @Test
    void aFullCacheEvictsOnlyIdleSessions() {
        sessions.step("g", "a", 0, List.of(P0), List.of());
        sessions.step("g", "b", 0, List.of(P0), List.of());
        assertThat(sessions.step("g", "c", 0, List.of(P0), List.of()).error())
                .isEqualTo(Errors.SHARE_SESSION_LIMIT_REACHED);
        clock.set(500);
        sessions.step("g", "b", 1, List.of(), List.of());
        clock.set(1_001);
        assertThat(sessions.step("g", "c", 0, List.of(P0), List.of()).error()).isEqualTo(Errors.NONE);
        assertThat(sessions.has("g", "a")).isFalse();
        assertThat(sessions.has("g", "b")).isTrue();
    }
}
