package io.varve.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.consumer.ConsumerApi;
import io.varve.coordinator.group.share.ShareApi;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * A group's own settings (group configs) over the broker-wide ones: consumer and share groups tell members their own
 * heartbeat interval and fence silent members after their own session timeout; other groups keep the broker's.
 */
class GroupOverridesTest {
    private static final TopicsSnapshot TOPICS =
            new TopicsSnapshot(1, List.of(new TopicsSnapshot.Topic("orders", Uuid.randomUuid(), 2, false)));
    /** ShardHarness.testConfig(): consumer session 10 s, heartbeat 1 s. */
    private static final int BROKER_SESSION_MS = 10_000;

    private static final GroupOverrides OWN = new GroupOverrides(3000, 400, 2500, 300, null, null, null, null, null);

    private final ShardHarness h = new ShardHarness(
            ShardHarness.testConfig(),
            ShardHarness.testStreamsConfig(),
            groupId -> groupId.startsWith("own") ? OWN : GroupOverrides.NONE);

    private ConsumerApi.HeartbeatResponse consumerJoin(String group, String member) {
        ConsumerApi.HeartbeatRequest r = new ConsumerApi.HeartbeatRequest(
                group,
                member,
                0,
                null,
                null,
                20_000,
                List.of("orders"),
                null,
                null,
                Map.of(),
                "client",
                "/127.0.0.1",
                (short) 1);
        return h.call(s -> s.consumerGroupHeartbeat(r, TOPICS));
    }

    private boolean hasMembers(String group) {
        Group g = h.shard().group(group);
        return g != null && !g.hasNoMembers();
    }

    @Test
    void aConsumerGroupsOwnSessionTimeoutFencesASilentMemberBeforeTheBrokerWideOne() {
        ConsumerApi.HeartbeatResponse own = consumerJoin("own-cg", "m1");
        ConsumerApi.HeartbeatResponse plain = consumerJoin("plain-cg", "m2");
        assertThat(own.error()).isEqualTo(Errors.NONE);
        assertThat(own.heartbeatIntervalMs()).isEqualTo(400);
        assertThat(plain.heartbeatIntervalMs()).isEqualTo(1000);

        h.advance(3001);
        assertThat(hasMembers("own-cg")).as("fenced after its group's 3 s").isFalse();
        assertThat(hasMembers("plain-cg")).as("within the broker's 10 s").isTrue();
        h.advance(BROKER_SESSION_MS);
        assertThat(hasMembers("plain-cg")).isFalse();
    }

    @Test
    void aShareGroupsOwnSessionTimeoutAndHeartbeatIntervalApplyToItsMembers() {
        ShareApi.HeartbeatResponse own = h.call(s -> s.shareGroupHeartbeat(
                new ShareApi.HeartbeatRequest("own-sg", "m1", 0, null, List.of("orders"), "client", "/127.0.0.1"),
                TOPICS));
        assertThat(own.error()).isEqualTo(Errors.NONE);
        assertThat(own.heartbeatIntervalMs()).isEqualTo(300);
        h.advance(2501);
        assertThat(hasMembers("own-sg")).as("fenced after its group's 2.5 s").isFalse();
    }
}
