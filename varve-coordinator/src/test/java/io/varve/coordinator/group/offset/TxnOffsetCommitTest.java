package io.varve.coordinator.group.offset;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.ShardHarness;
import io.varve.coordinator.group.classic.ClassicApi;
import io.varve.coordinator.group.classic.ClassicProtocol;
import io.varve.coordinator.group.offset.OffsetApi.CommitPartition;
import io.varve.coordinator.group.offset.OffsetApi.CommitRequest;
import io.varve.coordinator.group.offset.OffsetApi.FetchRequest;
import io.varve.coordinator.group.offset.OffsetApi.FetchedOffset;
import io.varve.coordinator.group.offset.OffsetApi.TxnCommitRequest;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.wire.ConsumerProtocolSubscriptions;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** TxnOffsetCommit: offsets staged per producer, visible only after the COMMIT marker, KIP-447 checks, replay. */
class TxnOffsetCommitTest {
    private static final long RETENTION_MS = 60_000;
    private static final long CHECK_MS = 1_000;
    private static final TopicPartition T0 = new TopicPartition("t", 0);
    private static final TopicPartition T1 = new TopicPartition("t", 1);
    private static final long PRODUCER = 4000;
    private static final short EPOCH = 3;

    private final ShardHarness h =
            new ShardHarness(ShardHarness.testConfig().withOffsetsRetention(RETENTION_MS, CHECK_MS));

    private Errors txnCommit(
            String group, long producerId, int generation, String memberId, TopicPartition tp, long offset) {
        return h.call(s -> s.commitTransactionalOffsets(new TxnCommitRequest(
                        group,
                        producerId,
                        EPOCH,
                        generation,
                        memberId,
                        null,
                        List.of(new CommitPartition(tp, offset, -1, "txn")))))
                .get(0)
                .error();
    }

    private Errors plainCommit(String group, TopicPartition tp, long offset) {
        return h.call(s -> s.commitOffsets(new CommitRequest(
                        group, -1, "", null, -1, List.of(new CommitPartition(tp, offset, -1, "")), false)))
                .get(0)
                .error();
    }

    private FetchedOffset fetch(String group, TopicPartition tp, boolean requireStable) {
        return h.call(s -> s.fetchOffsets(new FetchRequest(group, null, -1, List.of(tp), requireStable)))
                .offsets()
                .get(0);
    }

    /** A classic consumer group with one stable member (generation 1) subscribed to "t"; returns the member id. */
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
    void transactionalOffsetsAreInvisibleUntilTheCommitMarkerAndUnstableForRequireStable() {
        assertThat(plainCommit("g", T0, 5)).isEqualTo(Errors.NONE);
        assertThat(txnCommit("g", PRODUCER, -1, "", T0, 10)).isEqualTo(Errors.NONE);

        assertThat(fetch("g", T0, false).offset())
                .as("the pending offset is not visible")
                .isEqualTo(5);
        FetchedOffset stable = fetch("g", T0, true);
        assertThat(stable.error()).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);
        assertThat(stable.offset()).isEqualTo(-1);
        assertThat(fetch("g", T1, true).error())
                .as("only partitions with pending offsets")
                .isEqualTo(Errors.NONE);

        h.writeMarker(PRODUCER, true);
        FetchedOffset committed = fetch("g", T0, true);
        assertThat(committed.error()).isEqualTo(Errors.NONE);
        assertThat(committed.offset()).isEqualTo(10);
    }

    @Test
    void anAbortMarkerDropsThePendingOffsets() {
        assertThat(plainCommit("g", T0, 5)).isEqualTo(Errors.NONE);
        assertThat(txnCommit("g", PRODUCER, -1, "", T0, 10)).isEqualTo(Errors.NONE);
        h.writeMarker(PRODUCER, false);
        assertThat(fetch("g", T0, true).offset()).isEqualTo(5);
        h.writeMarker(PRODUCER, true);
        assertThat(fetch("g", T0, true).offset())
                .as("a later marker finds nothing pending")
                .isEqualTo(5);
    }

    @Test
    void theOffsetsAreWrittenAsATransactionalBatchOfTheProducer() {
        txnCommit("g", PRODUCER, -1, "", T0, 10);
        assertThat(h.entries).last().isInstanceOfSatisfying(ShardHarness.Data.class, d -> {
            assertThat(d.producerId()).isEqualTo(PRODUCER);
            assertThat(d.producerEpoch()).isEqualTo(EPOCH);
        });
        plainCommit("g", T1, 1);
        assertThat(h.entries).last().isInstanceOfSatisfying(ShardHarness.Data.class, d -> assertThat(d.producerId())
                .isEqualTo(Outbox.NO_PRODUCER_ID));
    }

    @Test
    void transactionsOfTwoProducersCompleteIndependently() {
        txnCommit("g", PRODUCER, -1, "", T0, 10);
        txnCommit("g", PRODUCER + 1, -1, "", T1, 20);
        h.writeMarker(PRODUCER + 1, true);
        assertThat(fetch("g", T1, true).offset()).isEqualTo(20);
        assertThat(fetch("g", T0, true).error()).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);
        h.writeMarker(PRODUCER, false);
        assertThat(fetch("g", T0, true).offset()).isEqualTo(-1);
    }

    @Test
    void aPlainCommitWrittenAfterTheTransactionalOneWinsWhenTheTransactionCommits() {
        txnCommit("g", PRODUCER, -1, "", T0, 10);
        plainCommit("g", T0, 7);
        h.writeMarker(PRODUCER, true);
        assertThat(fetch("g", T0, false).offset()).isEqualTo(7);

        h.reload();
        assertThat(fetch("g", T0, false).offset())
                .as("the replay orders them the same way")
                .isEqualTo(7);
    }

    @Test
    void aReloadKeepsOpenTransactionsPendingAndAppliesTheMarkersInTheLog() {
        txnCommit("committed", PRODUCER, -1, "", T0, 10);
        h.writeMarker(PRODUCER, true);
        txnCommit("aborted", PRODUCER + 1, -1, "", T0, 20);
        h.writeMarker(PRODUCER + 1, false);
        txnCommit("open", PRODUCER + 2, -1, "", T0, 30);

        h.reload();
        assertThat(fetch("committed", T0, true).offset()).isEqualTo(10);
        assertThat(fetch("aborted", T0, true).offset()).isEqualTo(-1);
        assertThat(fetch("open", T0, true).error()).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);
        assertThat(h.shard().group("open"))
                .as("a group holding only pending offsets is loaded")
                .isNotNull();

        h.writeMarker(PRODUCER + 2, true);
        assertThat(fetch("open", T0, true).offset()).isEqualTo(30);
    }

    @Test
    void theConsumersGenerationAndMemberAreCheckedAsKip447Says() {
        String member = stableMember("cg");
        assertThat(txnCommit("cg", PRODUCER, 1, member, T0, 1)).isEqualTo(Errors.NONE);
        assertThat(txnCommit("cg", PRODUCER, 2, member, T0, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(txnCommit("cg", PRODUCER, 1, "stranger", T0, 1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);
        assertThat(txnCommit("cg", PRODUCER, -1, "", T0, 1))
                .as("a producer without the consumer's group metadata may commit to a non-empty group")
                .isEqualTo(Errors.NONE);
        assertThat(txnCommit("absent", PRODUCER, 4, "m", T0, 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(txnCommit("simple", PRODUCER, -1, "", T0, 1)).isEqualTo(Errors.NONE);
        assertThat(h.shard().group("simple").stateName()).isEqualTo("Empty");
    }

    @Test
    void pendingOffsetsDoNotExpireAndAGroupDeletionDropsThem() {
        txnCommit("g", PRODUCER, -1, "", T0, 10);
        plainCommit("g", T1, 1);
        h.advance(RETENTION_MS + CHECK_MS);
        assertThat(fetch("g", T1, false).offset())
                .as("the plain offset expired")
                .isEqualTo(-1);
        assertThat(fetch("g", T0, true).error()).isEqualTo(Errors.UNSTABLE_OFFSET_COMMIT);

        Map<String, Errors> deleted = h.call(s -> s.deleteGroups(List.of("g")));
        assertThat(deleted).containsEntry("g", Errors.NONE);
        assertThat(fetch("g", T0, true).error()).isEqualTo(Errors.NONE);
        h.writeMarker(PRODUCER, true);
        assertThat(fetch("g", T0, true).offset())
                .as("nothing comes back after the deletion")
                .isEqualTo(-1);
        h.reload();
        assertThat(fetch("g", T0, true).offset()).isEqualTo(-1);
    }
}
