package io.varve.coordinator.group.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.GroupCoordinatorShard;
import io.varve.coordinator.group.ShardHarness;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.classic.ClassicApi;
import io.varve.coordinator.group.classic.ClassicProtocol;
import io.varve.coordinator.group.consumer.ConsumerApi;
import io.varve.coordinator.group.share.ShareApi.HeartbeatRequest;
import io.varve.coordinator.group.share.ShareApi.HeartbeatResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ShareGroupManagerTest {
    private static final String GROUP = "sg";
    private static final Uuid ONE_ID = Uuid.randomUuid();
    private static final Uuid SIX_ID = Uuid.randomUuid();
    private static final TopicsSnapshot TOPICS = new TopicsSnapshot(
            1,
            List.of(
                    new TopicsSnapshot.Topic("one", ONE_ID, 1, false),
                    new TopicsSnapshot.Topic("six", SIX_ID, 6, false)));

    private final ShardHarness h = new ShardHarness(ShardHarness.testConfig());

    private HeartbeatResponse heartbeat(String member, int epoch, List<String> topics) {
        return heartbeat(member, epoch, topics, TOPICS);
    }

    private HeartbeatResponse heartbeat(String member, int epoch, List<String> topics, TopicsSnapshot snapshot) {
        HeartbeatRequest r = new HeartbeatRequest(GROUP, member, epoch, null, topics, "client", "/127.0.0.1");
        return h.call(s -> s.shareGroupHeartbeat(r, snapshot));
    }

    @Test
    void everyMemberOfAOnePartitionTopicGetsThatPartition() {
        HeartbeatResponse a = heartbeat("a", 0, List.of("one"));
        HeartbeatResponse b = heartbeat("b", 0, List.of("one"));
        HeartbeatResponse c = heartbeat("c", 0, List.of("one"));
        assertThat(a.error()).isEqualTo(Errors.NONE);
        assertThat(a.assignment()).isEqualTo(Map.of(ONE_ID, Set.of(0)));
        assertThat(b.assignment()).isEqualTo(Map.of(ONE_ID, Set.of(0)));
        assertThat(c.assignment()).isEqualTo(Map.of(ONE_ID, Set.of(0)));
        assertThat(c.memberEpoch()).isEqualTo(3);
        // a joined at epoch 1: its next heartbeat moves it to the group's epoch 3, its partition unchanged
        HeartbeatResponse a2 = heartbeat("a", 1, null);
        assertThat(a2.memberEpoch()).isEqualTo(3);
        assertThat(a2.assignment()).isEqualTo(Map.of(ONE_ID, Set.of(0)));
        // and a heartbeat at an epoch the member never had is fenced
        assertThat(heartbeat("a", 2, null).error()).isEqualTo(Errors.FENCED_MEMBER_EPOCH);
        assertThat(heartbeat("a", 3, null).assignment()).isNull();
    }

    @Test
    void partitionsAreSpreadWhenThereAreMoreThanMembers() {
        heartbeat("a", 0, List.of("six"));
        HeartbeatResponse b = heartbeat("b", 0, List.of("six"));
        Set<Integer> all = new HashSet<>(b.assignment().get(SIX_ID));
        assertThat(all).hasSize(3);
        Map<String, ShareApi.GroupDescription> described = Map.of(GROUP, describe());
        ShareApi.GroupDescription d = described.get(GROUP);
        assertThat(d.state()).isEqualTo("Stable");
        assertThat(d.assignorName()).isEqualTo("simple");
        Set<Integer> union = new HashSet<>();
        d.members().forEach(m -> union.addAll(m.assignment().get(SIX_ID)));
        assertThat(union).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
    }

    @Test
    void aMemberThatStopsHeartbeatingLeavesAfterTheSessionTimeout() {
        heartbeat("a", 0, List.of("one"));
        heartbeat("b", 0, List.of("one"));
        h.advance(ShareGroupConfig.defaults().sessionTimeoutMs() - 1);
        heartbeat("b", 2, null);
        h.advance(2);
        assertThat(describe().members())
                .extracting(ShareApi.DescribedMember::memberId)
                .containsExactly("b");
        HeartbeatResponse b = heartbeat("b", 2, null);
        assertThat(b.memberEpoch()).isEqualTo(3);
        assertThat(b.assignment()).isEqualTo(Map.of(ONE_ID, Set.of(0)));
    }

    @Test
    void leavingEmptiesTheGroupAndAnUnknownMemberIsRefused() {
        heartbeat("a", 0, List.of("one"));
        assertThat(heartbeat("a", -1, null).memberEpoch()).isEqualTo(-1);
        assertThat(describe().state()).isEqualTo("Empty");
        assertThat(heartbeat("x", 5, null).error()).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
    }

    @Test
    void badRequestsAreInvalid() {
        assertThat(heartbeat("", 0, List.of("one")).error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(heartbeat("a", 0, null).error()).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(heartbeat("a", -2, null).error()).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void aNewTopicPartitionIsAssignedWithTheNextHeartbeat() {
        HeartbeatResponse a = heartbeat("a", 0, List.of("later"));
        assertThat(a.assignment()).isEmpty();
        Uuid laterId = Uuid.randomUuid();
        TopicsSnapshot withLater = new TopicsSnapshot(2, List.of(new TopicsSnapshot.Topic("later", laterId, 2, false)));
        HeartbeatResponse again = heartbeat("a", a.memberEpoch(), null, withLater);
        assertThat(again.memberEpoch()).isEqualTo(a.memberEpoch() + 1);
        assertThat(again.assignment()).isEqualTo(Map.of(laterId, Set.of(0, 1)));
    }

    @Test
    void theGroupSizeIsLimited() {
        ShareGroupConfig small = ShareGroupConfig.defaults();
        for (int i = 0; i < small.maxSize(); i++) {
            assertThat(heartbeat("m" + i, 0, List.of("one")).error()).isEqualTo(Errors.NONE);
        }
        assertThat(heartbeat("one-too-many", 0, List.of("one")).error()).isEqualTo(Errors.GROUP_MAX_SIZE_REACHED);
    }

    @Test
    void otherProtocolsCannotUseAShareGroupsId() {
        heartbeat("a", 0, List.of("one"));
        heartbeat("a", -1, null);
        ConsumerApi.HeartbeatRequest consumer = new ConsumerApi.HeartbeatRequest(
                GROUP, "c", 0, null, null, 30_000, List.of("one"), null, null, Map.of(), "c", "h", (short) 1);
        assertThat(h.<ConsumerApi.HeartbeatResponse>call(s -> s.consumerGroupHeartbeat(consumer, TOPICS))
                        .error())
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(h.<ShareApi.GroupDescription>call(s -> s.shareGroupDescribe("nope", TOPICS))
                        .error())
                .isEqualTo(Errors.GROUP_ID_NOT_FOUND);
        assertThat(h.<List<GroupCoordinatorShard.ListedGroup>>call(s -> s.listGroups(Set.of(), Set.of("share"))))
                .extracting(GroupCoordinatorShard.ListedGroup::groupId)
                .containsExactly(GROUP);
        assertThat(h.<List<GroupCoordinatorShard.ListedGroup>>call(s -> s.listGroups(Set.of(), Set.of("consumer"))))
                .isEmpty();
        assertThat(h.<Map<String, Errors>>call(s -> s.deleteGroups(List.of(GROUP))))
                .containsEntry(GROUP, Errors.NONE);
    }

    @Test
    void aClassicJoinOnAShareGroupIsAnInconsistentProtocol() {
        heartbeat("a", 0, List.of("one"));
        heartbeat("a", -1, null);
        ClassicApi.JoinRequest join = new ClassicApi.JoinRequest(
                GROUP,
                "",
                null,
                "c",
                "h",
                10_000,
                10_000,
                "consumer",
                List.of(new ClassicProtocol("range", new byte[0])),
                false,
                false,
                null);
        assertThat(h.<ClassicApi.JoinResponse>call(s -> s.joinGroup(join)).error())
                .isEqualTo(Errors.INCONSISTENT_GROUP_PROTOCOL);
    }

    private ShareApi.GroupDescription describe() {
        return h.call(s -> s.shareGroupDescribe(GROUP, TOPICS));
    }
}
