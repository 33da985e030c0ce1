package io.varve.coordinator.group.classic;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.GroupCoordinatorConfig;
import io.varve.coordinator.group.ShardHarness;
import io.varve.coordinator.group.classic.ClassicApi.JoinRequest;
import io.varve.coordinator.group.classic.ClassicApi.JoinResponse;
import io.varve.coordinator.group.classic.ClassicApi.SyncResponse;
import io.varve.coordinator.wire.ConsumerProtocolSubscriptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ClassicGroupManagerTest {
    private static final String GROUP = "g";
    private static final int SESSION_MS = 10_000;
    private static final int REBALANCE_MS = 30_000;

    private final ShardHarness h = new ShardHarness(ShardHarness.testConfig());

    static JoinRequest join(String memberId, String instanceId, List<String> topics) {
        return join(memberId, instanceId, "range", topics, true);
    }

    static JoinRequest join(
            String memberId, String instanceId, String protocol, List<String> topics, boolean skipAssignmentSupported) {
        return new JoinRequest(
                GROUP,
                memberId,
                instanceId,
                "client",
                "/127.0.0.1",
                SESSION_MS,
                REBALANCE_MS,
                "consumer",
                List.of(new ClassicProtocol(protocol, ConsumerProtocolSubscriptions.encode(topics))),
                true,
                skipAssignmentSupported,
                null);
    }

    private String joinNew() {
        JoinResponse required = h.call(s -> s.joinGroup(join("", null, List.of("t"))));
        assertThat(required.error()).isEqualTo(Errors.MEMBER_ID_REQUIRED);
        return required.memberId();
    }

    private SyncResponse sync(String memberId, int generation, Map<String, byte[]> assignments) {
        return h.call(s -> s.syncGroup(
                new ClassicApi.SyncRequest(GROUP, generation, memberId, null, "consumer", "range", assignments)));
    }

    private Errors heartbeat(String memberId, int generation) {
        return h.call(s -> s.heartbeat(new ClassicApi.HeartbeatRequest(GROUP, generation, memberId, null)));
    }

    private ClassicGroup group() {
        return (ClassicGroup) h.shard().group(GROUP);
    }

    /** One member, joined and synced: generation 1, stable. */
    private String stableSingleMember() {
        String a = joinNew();
        JoinResponse joined = h.call(s -> s.joinGroup(join(a, null, List.of("t"))));
        assertThat(joined.error()).isEqualTo(Errors.NONE);
        assertThat(joined.generationId()).isEqualTo(1);
        assertThat(joined.leaderId()).isEqualTo(a);
        assertThat(sync(a, 1, Map.of(a, new byte[] {1})).assignment()).containsExactly(1);
        return a;
    }

    @Test
    void aNewDynamicMemberFirstGetsAMemberIdThenLeadsGenerationOne() {
        String a = stableSingleMember();
        assertThat(group().state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(heartbeat(a, 1)).isEqualTo(Errors.NONE);
        assertThat(h.log)
                .as("the stable group is written when the leader's assignment arrives")
                .hasSize(1);
    }

    @Test
    void aJoiningMemberMakesTheOthersRejoinAndTheLeaderGetsEveryMembersMetadata() {
        String a = stableSingleMember();
        String b = joinNew();
        CompletableFuture<JoinResponse> bJoin = h.start(s -> s.joinGroup(join(b, null, List.of("t"))));
        assertThat(bJoin).isNotDone();
        assertThat(heartbeat(a, 1)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        CompletableFuture<JoinResponse> aJoin = h.start(s -> s.joinGroup(join(a, null, List.of("t"))));
        assertThat(aJoin).isDone();
        assertThat(bJoin).isDone();
        JoinResponse leader = aJoin.join();
        assertThat(leader.generationId()).isEqualTo(2);
        assertThat(leader.leaderId()).isEqualTo(a);
        assertThat(leader.protocolName()).isEqualTo("range");
        assertThat(leader.members())
                .extracting(ClassicApi.JoinedMember::memberId)
                .containsExactly(a, b);
        assertThat(bJoin.join().members()).isEmpty();

        CompletableFuture<SyncResponse> bSync =
                h.start(s -> s.syncGroup(new ClassicApi.SyncRequest(GROUP, 2, b, null, null, null, Map.of())));
        assertThat(bSync).as("a follower waits for the leader's assignment").isNotDone();
        assertThat(sync(a, 2, Map.of(a, new byte[] {1}, b, new byte[] {2})).assignment())
                .containsExactly(1);
        assertThat(bSync.join().assignment()).containsExactly(2);
        assertThat(heartbeat(b, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(heartbeat(b, 2)).isEqualTo(Errors.NONE);
    }

    @Test
    void theInitialRebalanceDelayCollectsMembersJoiningAnEmptyGroup() {
        ShardHarness delayed = new ShardHarness(ShardHarness.testConfig().withInitialRebalanceDelayMs(3000));
        JoinResponse required = delayed.call(s -> s.joinGroup(join("", null, List.of("t"))));
        CompletableFuture<JoinResponse> first =
                delayed.start(s -> s.joinGroup(join(required.memberId(), null, List.of("t"))));
        delayed.advance(2000);
        assertThat(first).isNotDone();
        JoinResponse required2 = delayed.call(s -> s.joinGroup(join("", null, List.of("t"))));
        CompletableFuture<JoinResponse> second =
                delayed.start(s -> s.joinGroup(join(required2.memberId(), null, List.of("t"))));
        delayed.advance(1000);
        assertThat(first).as("a member joined during the delay: it is extended").isNotDone();
        delayed.advance(3000);
        assertThat(first.join().generationId()).isEqualTo(1);
        assertThat(second.join().generationId()).isEqualTo(1);
        assertThat(first.join().members()).hasSize(2);
    }

    @Test
    void aMemberThatStopsHeartbeatingIsRemovedAfterItsSessionTimeout() {
        String a = stableSingleMember();
        h.advance(SESSION_MS - 1);
        assertThat(heartbeat(a, 1)).isEqualTo(Errors.NONE);
        h.advance(SESSION_MS);
        assertThat(group().state()).isEqualTo(ClassicGroupState.EMPTY);
        assertThat(group().generationId()).isEqualTo(2);
        assertThat(heartbeat(a, 2)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void membersThatDoNotRejoinWithinTheRebalanceTimeoutAreDropped() {
        String a = stableSingleMember();
        String b = joinNew();
        CompletableFuture<JoinResponse> bJoin = h.start(s -> s.joinGroup(join(b, null, List.of("t"))));
        for (int elapsedMs = 0; elapsedMs < REBALANCE_MS - SESSION_MS / 2; elapsedMs += SESSION_MS / 2) {
            h.advance(SESSION_MS / 2);
            // a keeps its session alive but never rejoins
            assertThat(heartbeat(a, 1)).isEqualTo(Errors.REBALANCE_IN_PROGRESS);
        }
        assertThat(bJoin).isNotDone();
        h.advance(SESSION_MS / 2);
        assertThat(bJoin.join().generationId()).isEqualTo(2);
        assertThat(bJoin.join().leaderId()).isEqualTo(b);
        assertThat(group().member(a)).isNull();
    }

    @Test
    void joinsThatBreakTheRulesGetKafkasErrors() {
        JoinRequest badSession = new JoinRequest(
                GROUP,
                "",
                null,
                "c",
                "h",
                10,
                REBALANCE_MS,
                "consumer",
                List.of(new ClassicProtocol("range", new byte[0])),
                true,
                true,
                null);
        assertThat(h.call(s -> s.joinGroup(badSession)).error()).isEqualTo(Errors.INVALID_SESSION_TIMEOUT);
        JoinRequest noGroup = new JoinRequest(
                "",
                "",
                null,
                "c",
                "h",
                SESSION_MS,
                REBALANCE_MS,
                "consumer",
                List.of(new ClassicProtocol("range", new byte[0])),
                true,
                true,
                null);
        assertThat(h.call(s -> s.joinGroup(noGroup)).error()).isEqualTo(Errors.INVALID_GROUP_ID);
        assertThat(h.call(s -> s.joinGroup(join("ghost", null, List.of("t")))).error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        stableSingleMember();
        JoinRequest otherProtocol = join("", null, "roundrobin", List.of("t"), true);
        assertThat(h.call(s -> s.joinGroup(otherProtocol)).error()).isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(h.call(s -> s.syncGroup(new ClassicApi.SyncRequest(GROUP, 1, "ghost", null, null, null, Map.of())))
                        .error())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void groupMaxSizeRefusesOneMemberTooMany() {
        ShardHarness small = new ShardHarness(ShardHarness.testConfig().withMaxSizes(1, 1));
        assertThat(small.call(s -> s.joinGroup(join("", null, List.of("t")))).error())
                .isEqualTo(Errors.MEMBER_ID_REQUIRED);
        assertThat(small.call(s -> s.joinGroup(join("", null, List.of("t")))).error())
                .isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
    }

    @Test
    void aRestartedStaticMemberTakesItsSlotWithoutARebalanceAndFencesItsOldId() {
        JoinResponse first = h.call(s -> s.joinGroup(join("", "instance-1", List.of("t"))));
        assertThat(first.error())
                .as("static members need no KIP-394 round trip")
                .isEqualTo(Errors.NONE);
        String old = first.memberId();
        sync(old, 1, Map.of(old, new byte[] {7}));

        JoinResponse again = h.call(s -> s.joinGroup(join("", "instance-1", List.of("t"))));
        assertThat(again.error()).isEqualTo(Errors.NONE);
        assertThat(again.generationId()).as("no rebalance").isEqualTo(1);
        assertThat(again.memberId()).isNotEqualTo(old);
        assertThat(again.skipAssignment())
                .as("it was the leader: it must not compute a new assignment")
                .isTrue();
        assertThat(group().state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(sync(again.memberId(), 1, Map.of()).assignment()).containsExactly(7);
        Errors oldInstance = h.call(s -> s.heartbeat(new ClassicApi.HeartbeatRequest(GROUP, 1, old, "instance-1")));
        assertThat(oldInstance).isEqualTo(Errors.FENCED_INSTANCE_ID);
    }

    @Test
    void leaveGroupRemovesStaticAndDynamicMembersAndReportsUnknownOnes() {
        JoinResponse s1 = h.call(s -> s.joinGroup(join("", "instance-1", List.of("t"))));
        sync(s1.memberId(), 1, Map.of());
        ClassicApi.LeaveResponse left = h.call(s -> s.leaveGroup(new ClassicApi.LeaveRequest(
                GROUP,
                List.of(
                        new ClassicApi.LeavingMember("", "instance-1", "shutdown"),
                        new ClassicApi.LeavingMember("ghost", null, null),
                        new ClassicApi.LeavingMember("wrong", "instance-2", null)))));
        assertThat(left.members())
                .extracting(ClassicApi.LeftMember::error)
                .containsExactly(Errors.NONE, Errors.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID);
        assertThat(group().state()).isEqualTo(ClassicGroupState.EMPTY);
    }

    @Test
    void aReloadedShardHasTheStableGroupWithItsAssignmentsAndRestartsSessions() {
        String a = stableSingleMember();
        h.reload();
        assertThat(group().state()).isEqualTo(ClassicGroupState.STABLE);
        assertThat(group().generationId()).isEqualTo(1);
        assertThat(group().member(a).assignment()).containsExactly(1);
        assertThat(heartbeat(a, 1)).isEqualTo(Errors.NONE);
        h.advance(SESSION_MS);
        assertThat(group().state()).isEqualTo(ClassicGroupState.EMPTY);
    }

    @Test
    void aLeaderThatNeverSyncsIsRemovedAtTheRebalanceTimeout() {
        String a = joinNew();
        h.call(s -> s.joinGroup(join(a, null, List.of("t"))));
        assertThat(group().state()).isEqualTo(ClassicGroupState.COMPLETING_REBALANCE);
        h.advance(REBALANCE_MS);
        assertThat(group().state()).isEqualTo(ClassicGroupState.EMPTY);
    }

    @Test
    void configDefaultsAreKafkas() {
        GroupCoordinatorConfig d = GroupCoordinatorConfig.defaults();
        assertThat(d.classicMinSessionTimeoutMs()).isEqualTo(6000);
        assertThat(d.classicMaxSessionTimeoutMs()).isEqualTo(1_800_000);
        assertThat(d.initialRebalanceDelayMs()).isEqualTo(3000);
        assertThat(d.offsetsRetentionMs()).isEqualTo(10080L * 60_000);
    }
}
