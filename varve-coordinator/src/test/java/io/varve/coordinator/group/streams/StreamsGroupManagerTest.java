package io.varve.coordinator.group.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.GroupCoordinatorShard;
import io.varve.coordinator.group.ShardHarness;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.offset.OffsetApi;
import io.varve.coordinator.group.record.StreamsGroupValue;
import io.varve.coordinator.group.record.StreamsGroupValue.Subtopology;
import io.varve.coordinator.group.record.StreamsGroupValue.TopicInfo;
import io.varve.coordinator.group.streams.StreamsApi.HeartbeatRequest;
import io.varve.coordinator.group.streams.StreamsApi.HeartbeatResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/**
 * The streams group heartbeat state machine on a fake clock: the topology of {@code StreamsEosApp} (input,
 * a repartition topic, a changelog), two subtopologies of 4 tasks each.
 */
class StreamsGroupManagerTest {
    private static final String GROUP = "app";
    private static final String REPARTITION = "app-by-bucket-repartition";
    private static final String CHANGELOG = "app-sums-changelog";
    private static final int SESSION_MS = StreamsGroupConfig.defaults().sessionTimeoutMs();
    private static final StreamsGroupValue.Topology TOPOLOGY = new StreamsGroupValue.Topology(
            0,
            List.of(
                    new Subtopology(
                            "0", List.of("input"), List.of(), List.of(), List.of(REPARTITION), List.of(), List.of()),
                    new Subtopology(
                            "1",
                            List.of(),
                            List.of(),
                            List.of(new TopicInfo(CHANGELOG, 0, (short) 1, Map.of("cleanup.policy", "compact"))),
                            List.of(),
                            List.of(new TopicInfo(REPARTITION, 0, (short) 1, Map.of())),
                            List.of())));

    private ShardHarness h = new ShardHarness(ShardHarness.testConfig());
    private final List<TopicsSnapshot.Topic> topicList = new ArrayList<>();
    private TopicsSnapshot topics = snapshot();

    private TopicsSnapshot snapshot() {
        return new TopicsSnapshot(topicList.size(), List.copyOf(topicList));
    }

    private void createTopic(String name, int partitions) {
        topicList.add(new TopicsSnapshot.Topic(name, Uuid.randomUuid(), partitions, false));
        topics = snapshot();
    }

    private HeartbeatResponse heartbeat(HeartbeatRequest r) {
        return h.call(s -> s.streamsGroupHeartbeat(r, topics));
    }

    private StreamsGroup group() {
        return (StreamsGroup) h.shard().group(GROUP);
    }

    /** A member as the client keeps it: its epoch and tasks, updated from each response. */
    private final class Member {
        final String id;
        final String process;
        int epoch;
        TasksTuple tasks = TasksTuple.EMPTY;
        HeartbeatResponse last;

        Member(String id, String process) {
            this.id = id;
            this.process = process;
        }

        HeartbeatResponse join() {
            return apply(heartbeat(new HeartbeatRequest(
                    GROUP,
                    id,
                    0,
                    -1,
                    null,
                    null,
                    30_000,
                    TOPOLOGY,
                    Map.of(),
                    Map.of(),
                    Map.of(),
                    process,
                    null,
                    Map.of(),
                    false,
                    "client",
                    "/127.0.0.1")));
        }

        /** Heartbeats reporting what it owns, having done whatever the last answer asked. */
        HeartbeatResponse beat() {
            return apply(heartbeat(new HeartbeatRequest(
                    GROUP,
                    id,
                    epoch,
                    -1,
                    null,
                    null,
                    -1,
                    null,
                    tasks.active(),
                    tasks.standby(),
                    tasks.warmup(),
                    null,
                    null,
                    null,
                    false,
                    null,
                    null)));
        }

        private HeartbeatResponse apply(HeartbeatResponse r) {
            last = r;
            if (r.error() == Errors.NONE) {
                epoch = r.memberEpoch();
                if (r.assignment() != null) {
                    tasks = r.assignment();
                }
            }
            return r;
        }

        int activeCount() {
            return TaskIds.count(tasks.active());
        }
    }

    private static Set<Byte> codes(HeartbeatResponse r) {
        Set<Byte> out = new java.util.HashSet<>();
        r.statuses().forEach(s -> out.add(s.code()));
        return out;
    }

    @Test
    void aMissingSourceTopicIsReportedAndNoTaskIsAssigned() {
        Member a = new Member("a", "p1");
        HeartbeatResponse r = a.join();
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(codes(r)).containsExactly(StreamsApi.MISSING_SOURCE_TOPICS);
        assertThat(r.statuses().get(0).detail()).contains("input");
        assertThat(a.tasks.isEmpty()).isTrue();
        assertThat(group().stateName()).isEqualTo("NotReady");
    }

    @Test
    void missingInternalTopicsAreReportedWithThePartitionsTheyMustBeCreatedWith() {
        createTopic("input", 4);
        Member a = new Member("a", "p1");
        HeartbeatResponse r = a.join();
        assertThat(codes(r)).containsExactly(StreamsApi.MISSING_INTERNAL_TOPICS);
        assertThat(r.topicsToCreate())
                .extracting(TopicInfo::name, TopicInfo::partitions)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(REPARTITION, 4),
                        org.assertj.core.groups.Tuple.tuple(CHANGELOG, 4));
        assertThat(r.topicsToCreate())
                .filteredOn(t -> t.name().equals(CHANGELOG))
                .singleElement()
                .satisfies(t -> assertThat(t.configs()).containsEntry("cleanup.policy", "compact"));
        assertThat(a.tasks.isEmpty()).isTrue();

        createTopic(REPARTITION, 4);
        createTopic(CHANGELOG, 4);
        r = a.beat();
        assertThat(r.statuses()).isEmpty();
        assertThat(r.topicsToCreate()).isEmpty();
        assertThat(a.activeCount()).isEqualTo(8);
        assertThat(a.epoch).isEqualTo(group().groupEpoch());
        assertThat(group().stateName()).isEqualTo("Stable");
    }

    @Test
    void anInternalTopicWithTheWrongPartitionCountIsReported() {
        createTopic("input", 4);
        createTopic(REPARTITION, 3);
        createTopic(CHANGELOG, 4);
        HeartbeatResponse r = new Member("a", "p1").join();
        assertThat(codes(r)).containsExactly(StreamsApi.INCORRECTLY_PARTITIONED_TOPICS);
        assertThat(r.statuses().get(0).detail()).contains(REPARTITION);
    }

    private void allTopics() {
        createTopic("input", 4);
        createTopic(REPARTITION, 4);
        createTopic(CHANGELOG, 4);
    }

    @Test
    void aNewMembersTasksAreRevokedFromTheOwnerBeforeTheNewMemberGetsThem() {
        allTopics();
        Member a = new Member("a", "p1");
        a.join();
        assertThat(a.activeCount()).isEqualTo(8);
        Member b = new Member("b", "p2");
        b.join();
        assertThat(b.activeCount()).as("nothing until a has revoked").isZero();
        assertThat(b.epoch).isEqualTo(group().groupEpoch());

        a.beat();
        assertThat(a.activeCount()).as("a keeps its half").isEqualTo(4);
        assertThat(a.epoch).as("a stays at its epoch while it revokes").isLessThan(group().groupEpoch());
        assertThat(group().member("a").activePendingRevocation()).isNotEmpty();

        b.beat();
        assertThat(b.activeCount())
                .as("still owned by a until a reports them gone")
                .isZero();

        a.beat(); // reports the 4 it kept: the revoked ones are free
        assertThat(a.epoch).isEqualTo(group().groupEpoch());
        b.beat();
        assertThat(b.activeCount()).isEqualTo(4);
        assertThat(TaskIds.intersects(a.tasks.active(), b.tasks.active())).isFalse();
        assertThat(group().stateName()).isEqualTo("Stable");
    }

    @Test
    void aMemberThatStopsHeartbeatingIsFencedAndTheOtherTakesOverItsTasks() {
        allTopics();
        Member a = new Member("a", "p1");
        Member b = new Member("b", "p2");
        a.join();
        b.join();
        for (int i = 0; i < 3; i++) {
            a.beat();
            b.beat();
        }
        assertThat(a.activeCount()).isEqualTo(4);
        assertThat(b.activeCount()).isEqualTo(4);
        h.advance(SESSION_MS / 2);
        a.beat();
        h.advance(SESSION_MS / 2 + 1);
        assertThat(group().member("b")).as("b fenced after its session timeout").isNull();
        a.beat();
        assertThat(a.activeCount()).isEqualTo(8);
        HeartbeatResponse late = b.beat();
        assertThat(late.error()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aMemberWithAnEpochNewerThanTheCoordinatorsIsFenced() {
        allTopics();
        Member a = new Member("a", "p1");
        a.join();
        a.epoch += 5;
        assertThat(a.beat().error()).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
    }

    @Test
    void theSameTopologyEpochWithADifferentTopologyIsRefused() {
        allTopics();
        new Member("a", "p1").join();
        StreamsGroupValue.Topology other = new StreamsGroupValue.Topology(
                0, List.of(TOPOLOGY.subtopologies().get(0)));
        HeartbeatResponse r = heartbeat(new HeartbeatRequest(
                GROUP, "b", 0, -1, null, null, 30_000, other, Map.of(), Map.of(), Map.of(), "p2", null, Map.of(), false,
                null, null));
        assertThat(r.error()).isEqualTo(Errors.STREAMS_INVALID_TOPOLOGY_EPOCH);
    }

    @Test
    void joiningWithoutATopologyIsAnInvalidRequest() {
        HeartbeatResponse r = heartbeat(new HeartbeatRequest(
                GROUP, "a", 0, -1, null, null, 30_000, null, null, null, null, "p1", null, null, false, null, null));
        assertThat(r.error()).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void withStandbyReplicasConfiguredEachTaskGetsAStandbyInTheOtherProcess() {
        h = new ShardHarness(
                ShardHarness.testConfig(), ShardHarness.testStreamsConfig().withNumStandbyReplicas(1));
        allTopics();
        Member a = new Member("a", "p1");
        Member b = new Member("b", "p2");
        a.join();
        b.join();
        for (int i = 0; i < 3; i++) {
            a.beat();
            b.beat();
        }
        assertThat(a.activeCount()).isEqualTo(4);
        assertThat(b.activeCount()).isEqualTo(4);
        assertThat(a.tasks.standby()).isEqualTo(b.tasks.active());
        assertThat(b.tasks.standby()).isEqualTo(a.tasks.active());
        assertThat(group().stateName()).isEqualTo("Stable");
    }

    @Test
    void aGroupsOwnStandbySettingGivesItStandbysWhereTheBrokerWideOneGivesNone() {
        h = new ShardHarness(
                ShardHarness.testConfig(),
                ShardHarness.testStreamsConfig(),
                groupId -> GROUP.equals(groupId)
                        ? new io.varve.coordinator.group.GroupOverrides(
                                null, null, null, null, null, null, null, 700, 1)
                        : io.varve.coordinator.group.GroupOverrides.NONE);
        allTopics();
        Member a = new Member("a", "p1");
        Member b = new Member("b", "p2");
        assertThat(a.join().heartbeatIntervalMs())
                .as("the group's own heartbeat interval")
                .isEqualTo(700);
        b.join();
        for (int i = 0; i < 3; i++) {
            a.beat();
            b.beat();
        }
        assertThat(a.tasks.standby()).isEqualTo(b.tasks.active());
        assertThat(b.tasks.standby()).isEqualTo(a.tasks.active());
    }

    @Test
    void aStandbyWaitsWhileAnotherMemberOfTheSameProcessStillRunsTheTaskAsActive() {
        h = new ShardHarness(
                ShardHarness.testConfig(), ShardHarness.testStreamsConfig().withNumStandbyReplicas(1));
        allTopics();
        Member a1 = new Member("a1", "p1");
        Member a2 = new Member("a2", "p1");
        a1.join();
        a2.join();
        for (int i = 0; i < 3; i++) {
            a1.beat();
            a2.beat();
        }
        assertThat(a1.tasks.standby()).as("one process: no standbys").isEmpty();
        Member b = new Member("b", "p2");
        b.join();
        // Until p1's members have revoked what moves to b, b may not hold those tasks in any role, and p1's
        // members may hold as standby only tasks no other p1 member still runs as active.
        for (int i = 0; i < 4; i++) {
            a1.beat();
            a2.beat();
            b.beat();
            assertThat(TaskIds.intersects(a1.tasks.active(), a2.tasks.standby()))
                    .isFalse();
            assertThat(TaskIds.intersects(a2.tasks.active(), a1.tasks.standby()))
                    .isFalse();
            assertThat(TaskIds.intersects(b.tasks.active(), a1.tasks.active())).isFalse();
            assertThat(TaskIds.intersects(b.tasks.active(), a2.tasks.active())).isFalse();
        }
        assertThat(group().stateName()).isEqualTo("Stable");
        assertThat(a1.activeCount() + a2.activeCount() + b.activeCount()).isEqualTo(8);
        assertThat(TaskIds.count(b.tasks.standby()))
                .as("p1's tasks have their standby on b")
                .isPositive();
    }

    @Test
    void membersWithAnEndpointLearnWhichSourcePartitionsEachEndpointServes() {
        allTopics();
        StreamsGroupValue.Endpoint endpointA = new StreamsGroupValue.Endpoint("host-a", 7070);
        HeartbeatResponse r = heartbeat(new HeartbeatRequest(
                GROUP, "a", 0, -1, null, null, 30_000, TOPOLOGY, Map.of(), Map.of(), Map.of(), "p1", endpointA,
                Map.of(), false, null, null));
        assertThat(r.endpoints()).as("the member's endpoint epoch -1 is behind").isNotNull();
        StreamsApi.EndpointPartitions a = r.endpoints().get(0);
        assertThat(a.endpoint()).isEqualTo(endpointA);
        assertThat(a.activePartitions())
                .containsEntry("input", Set.of(0, 1, 2, 3))
                .containsEntry(REPARTITION, Set.of(0, 1, 2, 3));
        int endpointEpoch = r.endpointInformationEpoch();
        HeartbeatResponse again = heartbeat(new HeartbeatRequest(
                GROUP,
                "a",
                r.memberEpoch(),
                endpointEpoch,
                null,
                null,
                -1,
                null,
                r.assignment().active(),
                Map.of(),
                Map.of(),
                null,
                null,
                null,
                false,
                null,
                null));
        assertThat(again.endpoints())
                .as("nothing new for a member at the current endpoint epoch")
                .isNull();
    }

    @Test
    void anEmptyGroupWaitsTheInitialRebalanceDelayBeforeSharingTheTasksAmongItsFirstMembers() {
        h = new ShardHarness(
                ShardHarness.testConfig(), ShardHarness.testStreamsConfig().withInitialRebalanceDelayMs(3000));
        allTopics();
        Member a = new Member("a", "p1");
        HeartbeatResponse r = a.join();
        assertThat(codes(r)).containsExactly(StreamsApi.ASSIGNMENT_DELAYED);
        assertThat(a.tasks.isEmpty()).isTrue();
        assertThat(a.epoch)
                .as("a real epoch to heartbeat with, not the join epoch")
                .isPositive();
        h.advance(1000);
        Member b = new Member("b", "p2");
        assertThat(codes(b.join())).containsExactly(StreamsApi.ASSIGNMENT_DELAYED);
        assertThat(a.beat().error()).isEqualTo(Errors.NONE);
        assertThat(a.tasks.isEmpty()).as("nothing before the delay is over").isTrue();

        h.advance(2000);
        for (int i = 0; i < 2; i++) {
            assertThat(a.beat().statuses()).isEmpty();
            b.beat();
        }
        assertThat(a.activeCount())
                .as("the first member did not get every task")
                .isEqualTo(4);
        assertThat(b.activeCount()).isEqualTo(4);
        assertThat(group().stateName()).isEqualTo("Stable");
    }

    @Test
    void theGroupSurvivesAReloadFromItsRecords() {
        allTopics();
        Member a = new Member("a", "p1");
        Member b = new Member("b", "p2");
        a.join();
        b.join();
        for (int i = 0; i < 3; i++) {
            a.beat();
            b.beat();
        }
        int epoch = group().groupEpoch();
        TasksTuple aTasks = group().member("a").assigned();
        h.reload();
        assertThat(group().groupEpoch()).isEqualTo(epoch);
        assertThat(group().member("a").assigned()).isEqualTo(aTasks);
        assertThat(group().topology()).isEqualTo(TOPOLOGY);
        HeartbeatResponse r = a.beat();
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.memberEpoch())
                .as("no new epoch: the same topics after the reload")
                .isEqualTo(epoch);
        assertThat(group().stateName()).isEqualTo("Stable");
    }

    @Test
    void offsetsAreCommittedOnlyByAMemberAtItsCurrentEpoch() {
        allTopics();
        Member a = new Member("a", "p1");
        a.join();
        TopicPartition tp = new TopicPartition("input", 0);
        List<OffsetApi.PartitionResult> ok = h.call(s -> s.commitOffsets(commit("a", a.epoch, tp)));
        assertThat(ok.get(0).error()).isEqualTo(Errors.NONE);
        List<OffsetApi.PartitionResult> stale = h.call(s -> s.commitOffsets(commit("a", a.epoch - 1, tp)));
        assertThat(stale.get(0).error()).isEqualTo(Errors.STALE_MEMBER_EPOCH);
        List<OffsetApi.PartitionResult> unknown = h.call(s -> s.commitOffsets(commit("z", a.epoch, tp)));
        assertThat(unknown.get(0).error()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    private static OffsetApi.CommitRequest commit(String memberId, int epoch, TopicPartition tp) {
        return new OffsetApi.CommitRequest(
                GROUP, epoch, memberId, null, -1, List.of(new OffsetApi.CommitPartition(tp, 10, -1, "")), true);
    }

    @Test
    void anEmptyStreamsGroupIsListedAndDeletedWithItsOffsets() {
        allTopics();
        Member a = new Member("a", "p1");
        a.join();
        List<GroupCoordinatorShard.ListedGroup> listed = h.call(s -> s.listGroups(Set.of(), Set.of("streams")));
        assertThat(listed).singleElement().satisfies(g -> {
            assertThat(g.type()).isEqualTo("Streams");
            assertThat(g.protocolType()).isEqualTo("streams");
        });
        Map<String, Errors> refused = h.call(s -> s.deleteGroups(List.of(GROUP)));
        assertThat(refused).containsEntry(GROUP, Errors.NON_EMPTY_GROUP);
        heartbeat(new HeartbeatRequest(
                GROUP, "a", -1, -1, null, null, -1, null, null, null, null, null, null, null, false, null, null));
        Map<String, Errors> deleted = h.call(s -> s.deleteGroups(List.of(GROUP)));
        assertThat(deleted).containsEntry(GROUP, Errors.NONE);
        h.reload();
        assertThat(h.shard().group(GROUP)).isNull();
    }
}
