package io.varve.coordinator.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.ShardHarness;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.assignor.Assignments;
import io.varve.coordinator.group.consumer.ConsumerApi.HeartbeatRequest;
import io.varve.coordinator.group.consumer.ConsumerApi.HeartbeatResponse;
import io.varve.coordinator.group.offset.OffsetApi;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ConsumerGroupManagerTest {
    private static final String GROUP = "cg";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicsSnapshot TOPICS = new TopicsSnapshot(
            1,
            List.of(
                    new TopicsSnapshot.Topic("orders", TOPIC_ID, 12, false),
                    new TopicsSnapshot.Topic("__consumer_offsets", Uuid.randomUuid(), 50, true)));
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 20_000;

    private ShardHarness h = new ShardHarness(ShardHarness.testConfig());

    private HeartbeatResponse heartbeat(HeartbeatRequest r) {
        return heartbeat(r, TOPICS);
    }

    private HeartbeatResponse heartbeat(HeartbeatRequest r, TopicsSnapshot topics) {
        return h.call(s -> s.consumerGroupHeartbeat(r, topics));
    }

    private static HeartbeatRequest join(String memberId, List<String> topics, String regex) {
        return new HeartbeatRequest(
                GROUP,
                memberId,
                0,
                null,
                null,
                REBALANCE_MS,
                topics,
                regex,
                null,
                Map.of(),
                "client",
                "/127.0.0.1",
                (short) 1);
    }

    private static HeartbeatRequest beat(String memberId, int epoch, Map<Uuid, Set<Integer>> owned) {
        return new HeartbeatRequest(
                GROUP, memberId, epoch, null, null, -1, null, null, null, owned, null, null, (short) 1);
    }

    private ConsumerGroup group() {
        return (ConsumerGroup) h.shard().group(GROUP);
    }

    /** A member's view: what it owns and its epoch, updated from each response like the client does. */
    private final class Member {
        final String id;
        int epoch;
        Map<Uuid, Set<Integer>> owned = Map.of();
        int revoked;

        Member(String id) {
            this.id = id;
        }

        HeartbeatResponse joinGroup() {
            return apply(heartbeat(join(id, List.of("orders"), null)));
        }

        HeartbeatResponse beat() {
            return apply(heartbeat(ConsumerGroupManagerTest.beat(id, epoch, owned)));
        }

        HeartbeatResponse apply(HeartbeatResponse r) {
            assertThat(r.error()).as(r.errorMessage()).isEqualTo(Errors.NONE);
            epoch = r.memberEpoch();
            if (r.assignment() != null) {
                for (Map.Entry<Uuid, Set<Integer>> e : owned.entrySet()) {
                    for (int p : e.getValue()) {
                        if (!r.assignment().getOrDefault(e.getKey(), Set.of()).contains(p)) {
                            revoked++;
                        }
                    }
                }
                owned = Assignments.copy(r.assignment());
            }
            return r;
        }

        int count() {
            return Assignments.count(owned);
        }
    }

    /** Heartbeats every member until none changes, at most {@code rounds} times. */
    private void converge(List<Member> members) {
        for (int round = 0; round < 10; round++) {
            boolean changed = false;
            for (Member m : members) {
                int epoch = m.epoch;
                Map<Uuid, Set<Integer>> owned = m.owned;
                m.beat();
                changed |= epoch != m.epoch || !owned.equals(m.owned);
            }
            if (!changed) {
                return;
            }
        }
        throw new AssertionError("members did not converge");
    }

    @Test
    void theFirstMemberGetsEveryPartitionAtEpochOne() {
        Member a = new Member("a");
        HeartbeatResponse r = a.joinGroup();
        assertThat(r.memberEpoch()).isEqualTo(1);
        assertThat(r.heartbeatIntervalMs()).isEqualTo(1000);
        assertThat(a.count()).isEqualTo(12);
        assertThat(group().stateName()).isEqualTo("Stable");
    }

    @Test
    void aJoiningMemberGetsPartitionsOnlyAfterTheOwnerRevokedThemAndOnlyThoseMove() {
        Member a = new Member("a");
        a.joinGroup();
        Member b = new Member("b");
        b.joinGroup();
        assertThat(b.epoch).isEqualTo(2);
        assertThat(b.count()).as("a still owns everything").isZero();
        assertThat(group().stateName()).isEqualTo("Reconciling");

        HeartbeatResponse revoke = a.beat();
        assertThat(revoke.memberEpoch()).as("a keeps its epoch while revoking").isEqualTo(1);
        assertThat(a.count()).isEqualTo(6);
        assertThat(b.beat().assignment())
                .as("nothing is released before a acknowledges")
                .isNull();
        a.beat();
        assertThat(a.epoch).isEqualTo(2);
        b.beat();
        assertThat(b.count()).isEqualTo(6);
        assertThat(a.revoked).as("partitions revoked equal partitions moved").isEqualTo(b.count());
        assertThat(group().stateName()).isEqualTo("Stable");

        Member c = new Member("c");
        c.joinGroup();
        converge(List.of(a, b, c));
        assertThat(List.of(a.count(), b.count(), c.count())).containsOnly(4);
        assertThat(a.revoked + b.revoked).isEqualTo(6 + 4);
    }

    @Test
    void epochsOutsideWhatTheCoordinatorKnowsAreFenced() {
        Member a = new Member("a");
        a.joinGroup();
        HeartbeatResponse ahead = heartbeat(beat("a", 5, a.owned));
        assertThat(ahead.error()).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        Member b = new Member("b");
        b.joinGroup();
        a.beat();
        a.beat(); // a is at epoch 2 now, its previous epoch is 1
        assertThat(a.epoch).isEqualTo(2);
        assertThat(heartbeat(beat("a", 1, a.owned)).error())
                .as("previous epoch, owning a subset")
                .isEqualTo(Errors.NONE);
        Map<Uuid, Set<Integer>> all = Map.of(TOPIC_ID, Set.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
        assertThat(heartbeat(beat("a", 1, all)).error()).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(heartbeat(beat("ghost", 1, Map.of())).error()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aSilentMemberIsFencedAfterTheSessionTimeoutAndTheOthersTakeItsPartitions() {
        Member a = new Member("a");
        a.joinGroup();
        Member b = new Member("b");
        b.joinGroup();
        converge(List.of(a, b));
        int epoch = group().groupEpoch();
        for (int i = 0; i < 3; i++) {
            h.advance(SESSION_MS / 2);
            a.beat();
        }
        assertThat(group().member("b")).isNull();
        assertThat(group().groupEpoch()).isEqualTo(epoch + 1);
        a.beat();
        assertThat(a.count()).isEqualTo(12);
    }

    @Test
    void aMemberThatDoesNotRevokeWithinItsRebalanceTimeoutIsFenced() {
        Member a = new Member("a");
        a.joinGroup();
        Member b = new Member("b");
        b.joinGroup();
        heartbeat(beat("a", 1, null)); // learns it must revoke, never acknowledges
        for (int i = 0; i < 5; i++) {
            h.advance(REBALANCE_MS / 4);
            heartbeat(beat("a", 1, null));
            b.beat();
        }
        assertThat(group().member("a")).isNull();
        b.beat();
        assertThat(b.count()).isEqualTo(12);
    }

    @Test
    void aRegexSubscriptionFollowsTopicsAsTheyAppearAndSkipsInternalTopics() {
        HeartbeatResponse r = heartbeat(join("a", null, "ord.*|__.*"));
        assertThat(r.assignment()).containsOnlyKeys(TOPIC_ID);
        Uuid newTopic = Uuid.randomUuid();
        TopicsSnapshot more = new TopicsSnapshot(
                2,
                List.of(
                        new TopicsSnapshot.Topic("orders", TOPIC_ID, 12, false),
                        new TopicsSnapshot.Topic("orders-eu", newTopic, 3, false)));
        HeartbeatResponse next = heartbeat(beat("a", r.memberEpoch(), r.assignment()), more);
        assertThat(next.memberEpoch()).isEqualTo(r.memberEpoch() + 1);
        assertThat(next.assignment()).containsEntry(newTopic, Set.of(0, 1, 2));
    }

    @Test
    void badHeartbeatsGetKafkasErrors() {
        assertThat(heartbeat(join("a", null, "orders[")).error()).isEqualTo(Errors.INVALID_REGULAR_EXPRESSION);
        HeartbeatRequest noSubscription = join("a", null, null);
        assertThat(heartbeat(noSubscription).error()).isEqualTo(Errors.INVALID_REQUEST);
        HeartbeatRequest unknownAssignor = new HeartbeatRequest(
                GROUP, "a", 0, null, null, REBALANCE_MS, List.of("orders"), null, "sticky", Map.of(), "c", "h", (short)
                        1);
        assertThat(heartbeat(unknownAssignor).error()).isEqualTo(Errors.UNSUPPORTED_ASSIGNOR);
        HeartbeatRequest noMemberId = new HeartbeatRequest(
                GROUP, "", 0, null, null, REBALANCE_MS, List.of("orders"), null, null, Map.of(), "c", "h", (short) 1);
        assertThat(heartbeat(noMemberId).error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(heartbeat(beat("a", 3, Map.of())).error())
                .as("no such group")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void theRangeAssignorIsUsedWhenMembersAskForIt() {
        HeartbeatRequest r = new HeartbeatRequest(
                GROUP, "a", 0, null, null, REBALANCE_MS, List.of("orders"), null, "range", Map.of(), "c", "h", (short)
                        1);
        heartbeat(r);
        HeartbeatRequest r2 = new HeartbeatRequest(
                GROUP, "b", 0, null, null, REBALANCE_MS, List.of("orders"), null, "range", Map.of(), "c", "h", (short)
                        1);
        heartbeat(r2);
        assertThat(group().targetOf("a")).containsEntry(TOPIC_ID, Set.of(0, 1, 2, 3, 4, 5));
        assertThat(group().targetOf("b")).containsEntry(TOPIC_ID, Set.of(6, 7, 8, 9, 10, 11));
        assertThat(h.call(s -> s.consumerGroupDescribe(GROUP, TOPICS)).assignorName())
                .isEqualTo("range");
    }

    @Test
    void aStaticMemberThatLeftTemporarilyComesBackWithItsAssignmentAndNoNewEpoch() {
        HeartbeatRequest joinStatic = new HeartbeatRequest(
                GROUP,
                "a1",
                0,
                "instance-a",
                null,
                REBALANCE_MS,
                List.of("orders"),
                null,
                null,
                Map.of(),
                "c",
                "h",
                (short) 1);
        HeartbeatResponse joined = heartbeat(joinStatic);
        int epoch = group().groupEpoch();
        HeartbeatRequest sameInstance = new HeartbeatRequest(
                GROUP,
                "a2",
                0,
                "instance-a",
                null,
                REBALANCE_MS,
                List.of("orders"),
                null,
                null,
                Map.of(),
                "c",
                "h",
                (short) 1);
        assertThat(heartbeat(sameInstance).error()).isEqualTo(Errors.UNRELEASED_INSTANCE_ID);

        HeartbeatResponse left = heartbeat(new HeartbeatRequest(
                GROUP,
                "a1",
                ConsumerApi.STATIC_LEAVE_EPOCH,
                "instance-a",
                null,
                -1,
                null,
                null,
                null,
                null,
                null,
                null,
                (short) 1));
        assertThat(left.memberEpoch()).isEqualTo(ConsumerApi.STATIC_LEAVE_EPOCH);
        HeartbeatResponse back = heartbeat(sameInstance);
        assertThat(back.error()).isEqualTo(Errors.NONE);
        assertThat(back.assignment()).isEqualTo(joined.assignment());
        assertThat(group().groupEpoch()).as("no rebalance").isEqualTo(epoch);
        assertThat(group().member("a1")).isNull();
    }

    @Test
    void groupMaxSizeRefusesOneMemberTooMany() {
        ShardHarness small = new ShardHarness(ShardHarness.testConfig().withMaxSizes(10, 1));
        assertThat(small.call(s -> s.consumerGroupHeartbeat(join("a", List.of("orders"), null), TOPICS))
                        .error())
                .isEqualTo(Errors.NONE);
        assertThat(small.call(s -> s.consumerGroupHeartbeat(join("b", List.of("orders"), null), TOPICS))
                        .error())
                .isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
    }

    @Test
    void offsetCommitsMustCarryTheMembersCurrentEpoch() {
        Member a = new Member("a");
        a.joinGroup();
        TopicPartition tp = new TopicPartition("orders", 0);
        List<OffsetApi.CommitPartition> p = List.of(new OffsetApi.CommitPartition(tp, 5, -1, ""));
        assertThat(commit("a", 1, p)).isEqualTo(Errors.NONE);
        assertThat(commit("a", 0, p)).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        assertThat(commit("a", 2, p)).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(commit("b", 1, p)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(commit("", -1, p))
                .as("member-less commits need an empty group")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        OffsetApi.FetchResponse stale =
                h.call(s -> s.fetchOffsets(new OffsetApi.FetchRequest(GROUP, "a", 0, null, true)));
        assertThat(stale.error()).isEqualTo(Errors.STALE_MEMBER_EPOCH);
    }

    private Errors commit(String memberId, int epoch, List<OffsetApi.CommitPartition> partitions) {
        return h.call(s -> s.commitOffsets(
                        new OffsetApi.CommitRequest(GROUP, epoch, memberId, null, -1, partitions, true)))
                .get(0)
                .error();
    }

    @Test
    void aReloadedShardKeepsEpochsMembersAndAssignments() {
        Member a = new Member("a");
        a.joinGroup();
        Member b = new Member("b");
        b.joinGroup();
        converge(List.of(a, b));
        int epoch = group().groupEpoch();
        h.reload();
        assertThat(group().groupEpoch()).isEqualTo(epoch);
        assertThat(group().member("a").assigned()).isEqualTo(a.owned);
        assertThat(a.beat().assignment()).isNull();
        assertThat(a.epoch).isEqualTo(epoch);
    }

    @Test
    void withMigrationDisabledANonEmptyClassicGroupIsNotAConsumerGroup() {
        h = new ShardHarness(
                ShardHarness.testConfig().withMigrationPolicy(io.varve.coordinator.group.MigrationPolicy.DISABLED));
        h.call(s -> s.joinGroup(new io.varve.coordinator.group.classic.ClassicApi.JoinRequest(
                GROUP,
                "",
                "i",
                "c",
                "h",
                10_000,
                10_000,
                "consumer",
                List.of(new io.varve.coordinator.group.classic.ClassicProtocol("range", new byte[0])),
                true,
                true,
                null)));
        assertThat(heartbeat(join("a", List.of("orders"), null)).error()).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        List<String> describedStates = new ArrayList<>();
        describedStates.add(
                h.call(s -> s.consumerGroupDescribe(GROUP, TOPICS)).error().name());
        assertThat(describedStates).containsExactly("GROUP_ID_NOT_FOUND");
    }
}
