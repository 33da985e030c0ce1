package io.varve.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.metadata.controller.replication.AlterPartitionReply;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.metadata.controller.replication.AlterPartitionRequest.PartitionIsr;
import io.varve.storage.AppendOrigin;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replica manager driven by images, on a real log: a leader of three replicas commits a write once its ISR has
 * it, and the waiting write learns of ISR shrinks, lost leadership and timeouts; coordinators' writes complete on
 * commit; leadership listeners hear of each election and resignation.
 */
class ReplicaManagerReplicationTest {
    private static final TopicPartition TP = new TopicPartition("t", 0);
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    @TempDir
    Path dir;

    private LogManager logs;
    private FetchPurgatory fetches;
    private ReplicaManager replicas;
    private final AtomicLong clock = new AtomicLong(1_000);
    private int partitionEpoch;

    @BeforeEach
    void start() {
        logs = new LogManager(List.of(dir), LogConfig.defaults());
        fetches = new FetchPurgatory(Runnable::run);
        replicas = new ReplicaManager(
                1,
                logs,
                fetches,
                (snapshot, overrides) -> LogConfig.defaults(),
                (snapshot, overrides) -> 2,
                clock::get);
    }

    @AfterEach
    void stop() {
        replicas.close();
        fetches.close();
        logs.close();
    }

    @Test
    void anAcksAllWriteCompletesOnceEveryIsrMemberHasFetchedPastIt() throws Exception {
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        Partition.LeaderAppend append = replicas.append(p, batch("a", "b"), AppendOrigin.CLIENT, (short) -1);
        CompletableFuture<Void> committed = replicas.producePurgatory()
                .await(p, append.result().lastOffset() + 1, append.leaderEpoch(), true, 30_000);
        p.followerFetched(2, 2);
        assertThat(committed).isNotDone();
        assertThat(p.highWatermark()).isEqualTo(0);
        p.followerFetched(3, 2);
        committed.get(5, TimeUnit.SECONDS);
        assertThat(p.highWatermark()).isEqualTo(2);
        assertThat(p.log().highWatermark()).isEqualTo(2);
    }

    @Test
    void aWriteCommittedBeforeItsWaitStartsIsAnsweredAtOnceWithoutBeingParked() throws Exception {
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        Partition.LeaderAppend append = replicas.append(p, batch("a"), AppendOrigin.CLIENT, (short) -1);
        p.followerFetched(2, 1);
        p.followerFetched(3, 1);

        CompletableFuture<Void> committed = replicas.producePurgatory().await(p, 1, append.leaderEpoch(), true, 30_000);

        assertThat(committed).isCompleted();
        assertThat(replicas.producePurgatory().waitingCount()).isZero();
    }

    @Test
    void aWaitAtAnEpochThisBrokerNoLongerLeadsAtFailsAtOnce() throws Exception {
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        Partition.LeaderAppend append = replicas.append(p, batch("a"), AppendOrigin.CLIENT, (short) -1);
        image(1, 1, 1, 2, 3); // re-elected at a newer epoch before the wait starts

        CompletableFuture<Void> committed = replicas.producePurgatory().await(p, 1, append.leaderEpoch(), true, 30_000);

        assertThat(committed).isCompletedExceptionally();
        assertThat(causeOf(committed)).isInstanceOf(NotLeaderOrFollowerException.class);
        assertThat(replicas.producePurgatory().waitingCount()).isZero();
    }

    @Test
    void aWriteWaitingWhenTheIsrShrinksBelowMinInsyncReplicasFailsWithNotEnoughReplicasAfterAppend() throws Exception {
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        Partition.LeaderAppend append = replicas.append(p, batch("a"), AppendOrigin.CLIENT, (short) -1);
        CompletableFuture<Void> committed = replicas.producePurgatory().await(p, 1, append.leaderEpoch(), true, 30_000);
        imageWithIsr(1, 0, List.of(1), 1, 2, 3); // the controller fenced both followers
        assertThat(causeOf(committed)).isInstanceOf(NotEnoughReplicasAfterAppendException.class);
        assertThat(p.highWatermark()).as("the ISR of one has it").isEqualTo(1);
        try {
            replicas.append(p, batch("b"), AppendOrigin.CLIENT, (short) -1);
            throw new AssertionError("an ISR of one took an acks=all write");
        } catch (NotEnoughReplicasException expected) {
            assertThat(p.log().logEndOffset()).as("nothing written").isEqualTo(1);
        }
        replicas.append(p, batch("c"), AppendOrigin.CLIENT, (short) 1); // acks=1 still accepted
    }

    @Test
    void aWriteWaitingWhenLeadershipMovesFailsWithNotLeaderOrFollower() throws Exception {
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        Partition.LeaderAppend append = replicas.append(p, batch("a"), AppendOrigin.CLIENT, (short) -1);
        CompletableFuture<Void> committed = replicas.producePurgatory().await(p, 1, append.leaderEpoch(), true, 30_000);
        image(2, 1, 1, 2, 3);
        assertThat(causeOf(committed)).isInstanceOf(NotLeaderOrFollowerException.class);
        assertThat(p.isLeader()).isFalse();
    }

    @Test
    void aWriteNotReplicatedInTimeFailsWithATimeout() throws Exception {
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        Partition.LeaderAppend append = replicas.append(p, batch("a"), AppendOrigin.CLIENT, (short) -1);
        CompletableFuture<Void> committed = replicas.producePurgatory().await(p, 1, append.leaderEpoch(), true, 50);
        assertThat(causeOf(committed)).isInstanceOf(TimeoutException.class);
    }

    @Test
    void aCoordinatorWriteCompletesWithItsLastOffsetOnCommitAndListenersHearOfLeadership() throws Exception {
        List<String> told = new ArrayList<>();
        replicas.addLeadershipListener(new LeadershipListener() {
            @Override
            public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {
                told.add("lead " + leaderEpoch);
            }

            @Override
            public void onResigning(TopicPartition tp, int leaderEpoch) {
                told.add("resign " + leaderEpoch);
            }
        });
        image(1, 0, 1, 2);
        CompletableFuture<Long> written = replicas.appendAsCoordinator(TP, batch("x", "y", "z"), 0);
        assertThat(written).isNotDone();
        replicas.partition(TP).orElseThrow().followerFetched(2, 3);
        assertThat(written.get(5, TimeUnit.SECONDS)).isEqualTo(2);
        assertThat(causeOf(replicas.appendAsCoordinator(TP, batch("w"), 7)))
                .isInstanceOf(NotLeaderOrFollowerException.class);
        image(2, 1, 1, 2);
        assertThat(told).containsExactly("lead 0", "resign 0");
    }

    @Test
    void aSingleReplicaLeaderCommitsAtOnce() throws Exception {
        image(1, 0, 1);
        Partition p = replicas.partition(TP).orElseThrow();
        Partition.LeaderAppend append = replicas.append(p, batch("a"), AppendOrigin.CLIENT, (short) 1);
        assertThat(p.highWatermark()).isEqualTo(1);
        replicas.producePurgatory()
                .await(p, 1, append.leaderEpoch(), false, 30_000)
                .get(5, TimeUnit.SECONDS);
    }

    @Test
    void aFollowerThatStopsFetchingLeavesTheIsrThroughAlterPartitionAndRejoinsOnceCaughtUp() throws Exception {
        List<AlterPartitionRequest> sent = java.util.Collections.synchronizedList(new ArrayList<>());
        replicas.startReplication(
                request -> {
                    sent.add(request);
                    PartitionIsr change = request.partitions().get(0);
                    List<Integer> isr = change.newIsr().stream()
                            .map(AlterPartitionRequest.IsrMember::brokerId)
                            .toList();
                    return CompletableFuture.completedFuture(new AlterPartitionReply(
                            org.apache.kafka.common.protocol.Errors.NONE,
                            List.of(new AlterPartitionReply.PartitionResult(
                                    change.topicId(),
                                    change.partitionId(),
                                    org.apache.kafka.common.protocol.Errors.NONE,
                                    1,
                                    change.leaderEpoch(),
                                    isr,
                                    change.partitionEpoch() + 1))));
                },
                () -> 42L,
                new ReplicaManager.FollowerFetching() {
                    @Override
                    public void follow(Partition partition, int leaderId, int leaderEpoch) {}

                    @Override
                    public void stopFollowing(TopicPartition tp) {}
                },
                100);
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        replicas.append(p, batch("a"), AppendOrigin.CLIENT, (short) 1);
        p.followerFetched(2, 1);
        p.followerFetched(3, 1);
        clock.addAndGet(50);
        p.followerFetched(2, 1); // 2 keeps fetching, 3 stopped
        clock.addAndGet(120);
        p.followerFetched(2, 1);
        org.awaitility.Awaitility.await("3 leaves the ISR")
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> p.isr().equals(java.util.Set.of(1, 2)));
        assertThat(sent.get(0).brokerEpoch()).isEqualTo(42);
        assertThat(sent.get(0).partitions().get(0).topicId()).isEqualTo(TOPIC_ID);
        p.followerFetched(3, 1); // back, caught up with the high watermark
        org.awaitility.Awaitility.await("3 rejoins the ISR")
                .atMost(java.time.Duration.ofSeconds(10))
                .until(() -> p.isr().equals(java.util.Set.of(1, 2, 3)));
    }

    @Test
    void aFormerLeaderThatAppendedNothingDropsItsEpochOnTheNewLeadersDivergenceAndThenMatchesItsHistory()
            throws Exception {
        // all three restarted at once: this broker led epoch 1 for a moment and wrote nothing, then 2 leads epoch 2
        // with a history that knows only epoch 0. Its answer to a fetch naming epoch 1 is a divergence at epoch 0's
        // end, which is this log's end: the truncation drops no record but must drop epoch 1, or the next fetch names
        // epoch 1 again and the follower never catches up (nor rejoins the ISR)
        image(1, 0, 1, 2, 3);
        Partition p = replicas.partition(TP).orElseThrow();
        replicas.append(p, batch("a", "b"), AppendOrigin.CLIENT, (short) 1);
        image(2, 1, 1, 2, 3);
        image(1, 2, 1, 2, 3); // leads epoch 2 (recorded at offset 2), loses it before appending
        assertThat(p.log().latestLeaderEpoch()).isEqualTo(2);
        image(2, 3, 1, 2, 3);

        assertThat(p.truncateTo(3, 2)).isTrue();

        assertThat(p.log().logEndOffset()).isEqualTo(2);
        assertThat(p.log().latestLeaderEpoch())
                .as("the next fetch names the epoch the leader knows")
                .isEqualTo(0);
    }

    private void image(int leader, int leaderEpoch, int... replicaIds) {
        List<Integer> isr = new ArrayList<>();
        for (int r : replicaIds) {
            isr.add(r);
        }
        imageWithIsr(leader, leaderEpoch, isr, replicaIds);
    }

    private void imageWithIsr(int leader, int leaderEpoch, List<Integer> isr, int... replicaIds) {
        PartitionInfo info = new PartitionInfo(
                0,
                leader,
                leaderEpoch,
                replicaIds,
                isr.stream().mapToInt(Integer::intValue).toArray(),
                partitionEpoch++);
        TopicInfo topic = new TopicInfo("t", TOPIC_ID, Map.of(0, info), Map.of());
        replicas.applyMetadata(new MetadataSnapshot(
                partitionEpoch, Map.of("t", topic), Map.of(TOPIC_ID, topic), List.of(), Map.of(), Map.of()));
    }

    private static ByteBuffer batch(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records).buffer();
    }

    private static Throwable causeOf(CompletableFuture<?> future) throws Exception {
        try {
            future.get(5, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }
}
