package io.varve.coordinator.group.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.MigrationPolicy;
import io.varve.coordinator.group.ShardHarness;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.classic.ClassicApi;
import io.varve.coordinator.group.classic.ClassicApi.JoinResponse;
import io.varve.coordinator.group.classic.ClassicGroup;
import io.varve.coordinator.group.classic.ClassicGroupState;
import io.varve.coordinator.group.classic.ClassicProtocol;
import io.varve.coordinator.group.consumer.ConsumerApi.HeartbeatRequest;
import io.varve.coordinator.group.consumer.ConsumerApi.HeartbeatResponse;
import io.varve.coordinator.group.offset.OffsetApi;
import io.varve.coordinator.wire.ConsumerProtocolAssignments;
import io.varve.coordinator.wire.ConsumerProtocolSubscriptions;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * Online migration between the classic and the consumer protocol: a classic group upgraded when a consumer-protocol
 * member joins, classic members working inside the consumer group, the downgrade when the last consumer-protocol
 * member leaves, offsets and the group surviving a reload, and what each policy refuses.
 */
class OnlineMigrationTest {
    private static final String GROUP = "g";
    private static final String TOPIC = "orders";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final int PARTITIONS = 6;
    private static final TopicsSnapshot TOPICS =
            new TopicsSnapshot(1, List.of(new TopicsSnapshot.Topic(TOPIC, TOPIC_ID, PARTITIONS, false)));
    private static final int SESSION_MS = 10_000;

    private ShardHarness h = new ShardHarness(ShardHarness.testConfig());

    // ---------------------------------------------------------------- a classic consumer, as the client is

    /** A classic (eager) consumer: its member id, generation and partitions, updated from each answer. */
    private final class ClassicConsumer {
        String memberId = "";
        int generation = -1;
        Set<Integer> owned = new TreeSet<>();

        ClassicApi.JoinRequest joinRequest() {
            byte[] subscription = ConsumerProtocolSubscriptions.encode(List.of(TOPIC));
            return new ClassicApi.JoinRequest(
                    GROUP,
                    memberId,
                    null,
                    "classic",
                    "/127.0.0.1",
                    SESSION_MS,
                    20_000,
                    "consumer",
                    List.of(new ClassicProtocol("range", subscription)),
                    true,
                    true,
                    null);
        }

        /** Starts a join (eager: gives up everything first); a classic group answers it when the rebalance ends. */
        java.util.concurrent.CompletableFuture<JoinResponse> startJoin() {
            owned.clear();
            return h.start(s -> s.joinGroup(joinRequest(), TOPICS));
        }

        JoinResponse join() {
            JoinResponse r = h.call(s -> s.joinGroup(joinRequest(), TOPICS));
            if (r.error() == Errors.MEMBER_ID_REQUIRED) {
                memberId = r.memberId();
                r = h.call(s -> s.joinGroup(joinRequest(), TOPICS));
            }
            apply(r);
            return r;
        }

        void apply(JoinResponse r) {
            assertThat(r.error()).isEqualTo(Errors.NONE);
            memberId = r.memberId();
            generation = r.generationId();
        }

        ClassicApi.SyncResponse sync(Map<String, byte[]> assignments) {
            ClassicApi.SyncResponse r = h.call(s -> s.syncGroup(
                    new ClassicApi.SyncRequest(GROUP, generation, memberId, null, "consumer", "range", assignments)));
            if (r.error() == Errors.NONE) {
                owned = new TreeSet<>(
                        ConsumerProtocolAssignments.decode(r.assignment()).getOrDefault(TOPIC, Set.of()));
            }
            return r;
        }

        Errors heartbeat() {
            return h.call(s -> s.heartbeat(new ClassicApi.HeartbeatRequest(GROUP, generation, memberId, null)));
        }

        /** Heartbeat; on REBALANCE_IN_PROGRESS rejoin and sync, as the classic client does. */
        void heartbeatAndFollow() {
            if (heartbeat() == Errors.REBALANCE_IN_PROGRESS) {
                owned.clear();
                join();
                assertThat(sync(Map.of()).error()).isEqualTo(Errors.NONE);
            }
        }

        Errors commit(int partition, long offset) {
            return h.call(s -> s.commitOffsets(commitRequest(memberId, generation, partition, offset)))
                    .get(0)
                    .error();
        }

        Errors leave() {
            return h.call(s -> s.leaveGroup(new ClassicApi.LeaveRequest(
                            GROUP, List.of(new ClassicApi.LeavingMember(memberId, null, "closing")))))
                    .members()
                    .get(0)
                    .error();
        }
    }

    /** A consumer-protocol member: epoch and owned partitions from each heartbeat answer. */
    private final class NewConsumer {
        final String memberId;
        int epoch;
        Map<Uuid, Set<Integer>> owned = new HashMap<>();

        NewConsumer(String memberId) {
            this.memberId = memberId;
        }

        HeartbeatResponse join() {
            return apply(h.call(s -> s.consumerGroupHeartbeat(
                    new HeartbeatRequest(
                            GROUP,
                            memberId,
                            0,
                            null,
                            null,
                            20_000,
                            List.of(TOPIC),
                            null,
                            null,
                            Map.of(),
                            "new",
                            "/127.0.0.1",
                            (short) 1),
                    TOPICS)));
        }

        HeartbeatResponse heartbeat() {
            Map<Uuid, Set<Integer>> reported = Map.copyOf(owned);
            return apply(h.call(s -> s.consumerGroupHeartbeat(
                    new HeartbeatRequest(
                            GROUP, memberId, epoch, null, null, -1, null, null, null, reported, null, null, (short) 1),
                    TOPICS)));
        }

        HeartbeatResponse leave() {
            return h.call(s -> s.consumerGroupHeartbeat(
                    new HeartbeatRequest(
                            GROUP, memberId, -1, null, null, -1, null, null, null, null, null, null, (short) 1),
                    TOPICS));
        }

        private HeartbeatResponse apply(HeartbeatResponse r) {
            if (r.error() == Errors.NONE) {
                epoch = r.memberEpoch();
                if (r.assignment() != null) {
                    owned = new HashMap<>(r.assignment());
                }
            }
            return r;
        }

        Set<Integer> partitions() {
            return owned.getOrDefault(TOPIC_ID, Set.of());
        }
    }

    private static OffsetApi.CommitRequest commitRequest(String memberId, int generation, int partition, long offset) {
        return new OffsetApi.CommitRequest(
                GROUP,
                generation,
                memberId,
                null,
                -1,
                List.of(new OffsetApi.CommitPartition(new TopicPartition(TOPIC, partition), offset, -1, "")),
                false);
    }

    private Group group() {
        return h.shard().group(GROUP);
    }

    /** Two classic consumers in a stable classic group, partitions 0-2 and 3-5, each committing offset 10. */
    private List<ClassicConsumer> stableClassicGroupOfTwo() {
        ClassicConsumer a = new ClassicConsumer();
        ClassicConsumer b = new ClassicConsumer();
        a.join();
        assertThat(a.sync(Map.of(a.memberId, ConsumerProtocolAssignments.encode(Map.of(TOPIC, Set.of(0)))))
                        .error())
                .isEqualTo(Errors.NONE);
        b.memberId = h.call(s -> s.joinGroup(b.joinRequest(), TOPICS)).memberId();
        var bJoin = b.startJoin();
        assertThat(a.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        var aJoin = a.startJoin();
        a.apply(aJoin.join());
        b.apply(bJoin.join());
        Map<String, byte[]> assignments = new LinkedHashMap<>();
        assignments.put(a.memberId, ConsumerProtocolAssignments.encode(Map.of(TOPIC, Set.of(0, 1, 2))));
        assignments.put(b.memberId, ConsumerProtocolAssignments.encode(Map.of(TOPIC, Set.of(3, 4, 5))));
        ClassicConsumer leader = aJoin.join().leaderId().equals(a.memberId) ? a : b;
        ClassicConsumer follower = leader == a ? b : a;
        assertThat(leader.sync(assignments).error()).isEqualTo(Errors.NONE);
        assertThat(follower.sync(Map.of()).error()).isEqualTo(Errors.NONE);
        assertThat(((ClassicGroup) group()).state()).isEqualTo(ClassicGroupState.STABLE);
        for (int p = 0; p < PARTITIONS; p++) {
            ClassicConsumer owner = p < 3 ? a : b;
            assertThat(owner.commit(p, 10)).isEqualTo(Errors.NONE);
        }
        return List.of(a, b);
    }

    /** Every member moves until nothing changes; no partition is ever owned by two members. */
    private void settle(List<ClassicConsumer> classics, List<NewConsumer> news) {
        for (int round = 0; round < 10; round++) {
            for (ClassicConsumer c : classics) {
                c.heartbeatAndFollow();
                assertNoPartitionOwnedTwice(classics, news);
            }
            for (NewConsumer n : news) {
                assertThat(n.heartbeat().error()).isEqualTo(Errors.NONE);
                assertNoPartitionOwnedTwice(classics, news);
            }
        }
    }

    private static void assertNoPartitionOwnedTwice(List<ClassicConsumer> classics, List<NewConsumer> news) {
        Set<Integer> seen = new HashSet<>();
        for (ClassicConsumer c : classics) {
            for (int p : c.owned) {
                assertThat(seen.add(p)).as("partition %d owned twice", p).isTrue();
            }
        }
        for (NewConsumer n : news) {
            for (int p : n.partitions()) {
                assertThat(seen.add(p)).as("partition %d owned twice", p).isTrue();
            }
        }
    }

    private static Set<Integer> allOwned(List<ClassicConsumer> classics, List<NewConsumer> news) {
        Set<Integer> all = new TreeSet<>();
        classics.forEach(c -> all.addAll(c.owned));
        news.forEach(n -> all.addAll(n.partitions()));
        return all;
    }

    private Map<TopicPartition, Long> committed() {
        return h.call(s -> s.committedOffsets(GROUP));
    }

    // ---------------------------------------------------------------- tests

    @Test
    void aConsumerProtocolMemberJoiningAStableClassicGroupUpgradesItAndTheClassicMembersKeepTheirPartitions() {
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        int generation = classics.get(0).generation;

        NewConsumer n = new NewConsumer("new-1");
        assertThat(n.join().error()).isEqualTo(Errors.NONE);

        assertThat(group()).isInstanceOf(ConsumerGroup.class);
        ConsumerGroup g = (ConsumerGroup) group();
        for (ClassicConsumer c : classics) {
            ConsumerMember m = g.member(c.memberId);
            assertThat(m.usesClassicProtocol()).isTrue();
            assertThat(m.memberEpoch()).isEqualTo(generation);
        }
        assertThat(g.member(classics.get(0).memberId).assigned()).isEqualTo(Map.of(TOPIC_ID, Set.of(0, 1, 2)));
        // The new member gets nothing the classic members still own: the partitions wait for them.
        assertThat(n.partitions()).isEmpty();
        // The classic members are told to rejoin, and a commit at their generation still counts until they do.
        assertThat(classics.get(0).heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        assertThat(classics.get(0).commit(0, 11)).isEqualTo(Errors.NONE);
        assertThat(committed()).hasSize(PARTITIONS);

        settle(classics, List.of(n));
        assertThat(allOwned(classics, List.of(n))).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(n.partitions()).hasSize(2);
        for (ClassicConsumer c : classics) {
            assertThat(c.owned).hasSize(2);
            assertThat(c.heartbeat()).isEqualTo(Errors.NONE);
        }
        assertThat(h.log.stream().filter(r -> r.value() == null).count())
                .as("the classic group's tombstone is written")
                .isGreaterThanOrEqualTo(1);
    }

    @Test
    void theMigratedGroupWithItsClassicMembersAndOffsetsSurvivesACoordinatorReload() {
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        NewConsumer n = new NewConsumer("new-1");
        n.join();
        settle(classics, List.of(n));
        ConsumerGroup before = (ConsumerGroup) group();
        int epoch = before.groupEpoch();

        h.reload();

        ConsumerGroup after = (ConsumerGroup) group();
        assertThat(after.groupEpoch()).isEqualTo(epoch);
        for (ClassicConsumer c : classics) {
            assertThat(after.member(c.memberId).usesClassicProtocol()).isTrue();
            assertThat(c.heartbeat()).isEqualTo(Errors.NONE);
        }
        assertThat(n.heartbeat().error()).isEqualTo(Errors.NONE);
        assertThat(committed()).containsEntry(new TopicPartition(TOPIC, 3), 10L).hasSize(PARTITIONS);
    }

    @Test
    void whenTheLastConsumerProtocolMemberLeavesTheGroupBecomesClassicAgainAndRebalances() {
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        NewConsumer n = new NewConsumer("new-1");
        n.join();
        settle(classics, List.of(n));
        n.owned.clear();
        assertThat(n.leave().error()).isEqualTo(Errors.NONE);

        assertThat(group()).isInstanceOf(ClassicGroup.class);
        ClassicGroup g = (ClassicGroup) group();
        assertThat(g.state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(g.members()).hasSize(2);
        // Members at the group's generation are told to rejoin, and may still commit what they processed.
        ClassicConsumer a = classics.get(0);
        ClassicConsumer b = classics.get(1);
        assertThat(a.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        int p = a.owned.iterator().next();
        assertThat(a.commit(p, 20)).isEqualTo(Errors.NONE);

        var aJoin = a.startJoin();
        var bJoin = b.startJoin();
        a.apply(aJoin.join());
        b.apply(bJoin.join());
        assertThat(g.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        ClassicConsumer leader = g.leaderId().equals(a.memberId) ? a : b;
        ClassicConsumer follower = leader == a ? b : a;
        Map<String, byte[]> assignments = Map.of(
                leader.memberId, ConsumerProtocolAssignments.encode(Map.of(TOPIC, Set.of(0, 1, 2))),
                follower.memberId, ConsumerProtocolAssignments.encode(Map.of(TOPIC, Set.of(3, 4, 5))));
        assertThat(leader.sync(assignments).error()).isEqualTo(Errors.NONE);
        assertThat(follower.sync(Map.of()).error()).isEqualTo(Errors.NONE);
        assertThat(g.state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(committed()).containsEntry(new TopicPartition(TOPIC, p), 20L).hasSize(PARTITIONS);

        h.reload();
        assertThat(group()).isInstanceOf(ClassicGroup.class);
        assertThat(leader.heartbeat()).isEqualTo(Errors.NONE);
    }

    @Test
    void aCoordinatorLoadingTheGroupBeforeTheDowngradeRebalanceEndedStartsTheRebalanceAgain() {
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        NewConsumer n = new NewConsumer("new-1");
        n.join();
        settle(classics, List.of(n));
        n.owned.clear();
        n.leave();
        assertThat(((ClassicGroup) group()).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);

        h.reload();

        ClassicGroup g = (ClassicGroup) group();
        assertThat(g.state())
                .as("the partitions the consumer-protocol member gave up must be assigned again")
                .isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        ClassicConsumer a = classics.get(0);
        assertThat(a.heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        var aJoin = a.startJoin();
        var bJoin = classics.get(1).startJoin();
        a.apply(aJoin.join());
        classics.get(1).apply(bJoin.join());
        assertThat(g.state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        ClassicConsumer leader = g.leaderId().equals(a.memberId) ? a : classics.get(1);
        leader.sync(Map.of(leader.memberId, ConsumerProtocolAssignments.encode(Map.of(TOPIC, Set.of(0)))));
        assertThat(g.state()).isEqualTo(ClassicGroupState.STABLE);

        h.reload();
        assertThat(((ClassicGroup) group()).state())
                .as("a group stable since stays stable on the next load")
                .isEqualTo(ClassicGroupState.STABLE);
    }

    @Test
    void withUpgradesDisabledAConsumerProtocolMemberCannotJoinANonEmptyClassicGroup() {
        h = new ShardHarness(ShardHarness.testConfig().withMigrationPolicy(MigrationPolicy.DOWNGRADE));
        stableClassicGroupOfTwo();
        HeartbeatResponse r = new NewConsumer("new-1").join();
        assertThat(r.error()).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(r.errorMessage()).contains("group.consumer.migration.policy=downgrade");
        assertThat(group()).isInstanceOf(ClassicGroup.class);
    }

    @Test
    void withDowngradesDisabledTheGroupStaysAConsumerGroupWhenOnlyClassicMembersRemain() {
        h = new ShardHarness(ShardHarness.testConfig().withMigrationPolicy(MigrationPolicy.UPGRADE));
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        NewConsumer n = new NewConsumer("new-1");
        n.join();
        settle(classics, List.of(n));
        n.leave();
        assertThat(group()).isInstanceOf(ConsumerGroup.class);
        settle(classics, List.of());
        assertThat(allOwned(classics, List.of())).containsExactly(0, 1, 2, 3, 4, 5);
    }

    @Test
    void aClassicGroupRebalancingIsUpgradedOnlyOnceStable() {
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        assertThat(classics.get(1).leave()).isEqualTo(Errors.NONE);
        assertThat(((ClassicGroup) group()).state()).isEqualTo(ClassicGroupState.PREPARING_REBALANCE);
        assertThat(new NewConsumer("new-1").join().error()).isEqualTo(Errors.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(group()).isInstanceOf(ClassicGroup.class);
    }

    @Test
    void aClassicMemberOfAnotherProtocolTypeCannotJoinTheConsumerGroup() {
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        new NewConsumer("new-1").join();
        ClassicApi.JoinRequest connect = new ClassicApi.JoinRequest(
                GROUP,
                "",
                null,
                "connect",
                "/127.0.0.1",
                SESSION_MS,
                20_000,
                "connect",
                List.of(new ClassicProtocol("sessioned", new byte[] {0})),
                false,
                true,
                null);
        assertThat(h.call(s -> s.joinGroup(connect, TOPICS)).error()).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(classics.get(0).heartbeat()).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
    }

    @Test
    void aClassicMemberThatStopsHeartbeatingIsRemovedAfterItsOwnSessionTimeout() {
        List<ClassicConsumer> classics = stableClassicGroupOfTwo();
        NewConsumer n = new NewConsumer("new-1");
        n.join();
        settle(classics, List.of(n));
        h.advance(SESSION_MS - 1000);
        n.heartbeat();
        classics.get(0).heartbeatAndFollow();
        h.advance(2000);
        ConsumerGroup g = (ConsumerGroup) group();
        assertThat(g.member(classics.get(1).memberId)).isNull();
        assertThat(g.member(classics.get(0).memberId)).isNotNull();
    }
}
