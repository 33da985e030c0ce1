package io.varve.coordinator.group.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.GroupCoordinatorShard;
import io.varve.coordinator.group.ShardHarness;
import io.varve.coordinator.group.classic.ClassicApi;
import io.varve.coordinator.group.classic.ClassicProtocol;
import io.varve.coordinator.group.offset.OffsetApi.CommitPartition;
import io.varve.coordinator.group.offset.OffsetApi.CommitRequest;
import io.varve.coordinator.group.offset.OffsetApi.FetchRequest;
import io.varve.coordinator.wire.ConsumerProtocolSubscriptions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class OffsetManagerTest {
    private static final long RETENTION_MS = 60_000;
    private static final long CHECK_MS = 1_000;
    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition U0 = new TopicPartition("u", 0);

    private final ShardHarness h =
            new ShardHarness(ShardHarness.testConfig().withOffsetsRetention(RETENTION_MS, CHECK_MS));

    private Errors commit(String group, int generation, String memberId, TopicPartition tp, long offset) {
        return h.call(s -> s.commitOffsets(new CommitRequest(
                        group,
                        generation,
                        memberId,
                        null,
                        -1,
                        List.of(new CommitPartition(tp, offset, -1, "m")),
                        false)))
                .get(0)
                .error();
    }

    private long fetch(String group, TopicPartition tp) {
        return h.call(s -> s.fetchOffsets(new FetchRequest(group, null, -1, List.of(tp), true)))
                .offsets()
                .get(0)
                .offset();
    }

    /** A classic consumer group with one stable member subscribed to "t"; returns the member id. */
    private String stableMember(String group) {
        ClassicApi.JoinRequest join = new ClassicApi.JoinRequest(
                group,
                "",
                "static",
                "c",
                "h",
                60_000,
                10_000,
                "consumer",
                List.of(new ClassicProtocol("range", ConsumerProtocolSubscriptions.encode(List.of("t")))),
                true,
                true,
                null);
        String memberId = h.call(s -> s.joinGroup(join)).memberId();
        h.call(s -> s.syncGroup(new ClassicApi.SyncRequest(group, 1, memberId, "static", null, null, Map.of())));
        return memberId;
    }

    @Test
    void aStandaloneCommitCreatesAnEmptyGroupAndIsReadBack() {
        assertThat(commit("simple", -1, "", T0, 17)).isEqualTo(Errors.NONE);
        assertThat(fetch("simple", T0)).isEqualTo(17);
        assertThat(fetch("simple", U0)).isEqualTo(-1);
        assertThat(fetch("nobody", T0)).isEqualTo(-1);
        assertThat(h.shard().group("simple").stateName()).isEqualTo("Empty");
        OffsetApi.FetchResponse all = h.call(s -> s.fetchOffsets(new FetchRequest("simple", null, -1, null, false)));
        assertThat(all.offsets()).extracting(OffsetApi.FetchedOffset::partition).containsExactly(T0);
    }

    @Test
    void commitsAreCheckedAgainstTheClassicGeneration() {
        assertThat(commit("missing", 3, "m", T0, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        String member = stableMember("g");
        assertThat(commit("g", 1, member, T0, 5)).isEqualTo(Errors.NONE);
        assertThat(commit("g", 2, member, T0, 5)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(commit("g", 1, "ghost", T0, 5)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(commit("g", -1, "", T0, 5))
                .as("no simple commits to a live group")
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        String big = "x".repeat(5000);
        assertThat(h.call(s -> s.commitOffsets(new CommitRequest(
                                "g", 1, member, null, -1, List.of(new CommitPartition(T0, 6, -1, big)), false)))
                        .get(0)
                        .error())
                .isEqualTo(Errors.OFFSET_METADATA_TOO_LARGE);
        assertThat(fetch("g", T0)).isEqualTo(5);
    }

    @Test
    void offsetsOfAnIdleStandaloneGroupExpireAndTheGroupGoesWithThem() {
        commit("simple", -1, "", T0, 17);
        h.advance(RETENTION_MS - CHECK_MS);
        assertThat(fetch("simple", T0)).isEqualTo(17);
        h.advance(2 * CHECK_MS);
        assertThat(fetch("simple", T0)).isEqualTo(-1);
        assertThat(h.shard().group("simple")).isNull();
        assertThat(h.log.get(h.log.size() - 1).isTombstone()).isTrue();
    }

    @Test
    void aStableGroupKeepsTheOffsetsOfTopicsItSubscribesTo() {
        String member = stableMember("g");
        commit("g", 1, member, T0, 5);
        commit("g", 1, member, U0, 9);
        for (int i = 0; i < 3; i++) {
            h.advance(RETENTION_MS / 2);
            h.call(s -> s.heartbeat(new ClassicApi.HeartbeatRequest("g", 1, member, "static")));
        }
        assertThat(fetch("g", T0)).isEqualTo(5);
        assertThat(fetch("g", U0)).as("u is not subscribed").isEqualTo(-1);
    }

    @Test
    void offsetDeleteRefusesSubscribedTopicsAndUnknownGroups() {
        String member = stableMember("g");
        commit("g", 1, member, T0, 5);
        commit("g", 1, member, U0, 9);
        OffsetApi.DeleteResponse r = h.call(s -> s.deleteOffsets("g", List.of(T0, U0)));
        assertThat(r.error()).isEqualTo(Errors.NONE);
        assertThat(r.partitions())
                .extracting(OffsetApi.PartitionResult::error)
                .containsExactly(Errors.GROUP_SUBSCRIBED_TO_TOPIC, Errors.NONE);
        assertThat(fetch("g", U0)).isEqualTo(-1);
        assertThat(h.call(s -> s.deleteOffsets("nobody", List.of(T0))).error()).isEqualTo(Errors.GROUP_ID_NOT_FOUND);
    }

    @Test
    void deleteGroupsDeletesOnlyEmptyGroupsWithTheirOffsets() {
        stableMember("live");
        commit("idle", -1, "", T0, 1);
        Map<String, Errors> r = h.call(s -> s.deleteGroups(List.of("live", "idle", "nobody")));
        assertThat(r)
                .containsEntry("live", Errors.NON_EMPTY_GROUP)
                .containsEntry("idle", Errors.NONE)
                .containsEntry("nobody", Errors.GROUP_ID_NOT_FOUND);
        assertThat(fetch("idle", T0)).isEqualTo(-1);
        h.reload();
        assertThat(h.shard().group("idle")).isNull();
        assertThat(h.shard().group("live")).isNotNull();
    }

    @Test
    void committedOffsetsSurviveAReload() {
        commit("simple", -1, "", T0, 17);
        h.reload();
        assertThat(fetch("simple", T0)).isEqualTo(17);
        assertThat(h.shard().group("simple").stateName()).isEqualTo("Empty");
        List<GroupCoordinatorShard.ListedGroup> empty = h.call(s -> s.listGroups(Set.of("empty"), Set.of("classic")));
        assertThat(empty).hasSize(1);
        List<GroupCoordinatorShard.ListedGroup> stable = h.call(s -> s.listGroups(Set.of("stable"), Set.of()));
        assertThat(stable).isEmpty();
    }
}
