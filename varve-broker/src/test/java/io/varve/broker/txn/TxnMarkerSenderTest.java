package io.varve.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.BrokerInfo;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.coordinator.runtime.CoordinatorScheduler;
import io.varve.coordinator.txn.TxnApi.MarkerRequest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class TxnMarkerSenderTest {
    private static final int SELF = 1;
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition A1 = new TopicPartition("a", 1);
    private static final TopicPartition B0 = new TopicPartition("b", 0);

    /** Retries wait here until the test runs them. */
    private final ArrayDeque<Runnable> retries = new ArrayDeque<>();

    private final CoordinatorScheduler scheduler = new CoordinatorScheduler() {
        @Override
        public void execute(int partition, Runnable task) {
            task.run();
        }

        @Override
        public Cancellable schedule(int partition, Runnable task, long delayMs) {
            retries.add(task);
            return () -> retries.remove(task);
        }
    };

    private final MetadataCache cache = new MetadataCache(SELF, "cluster");
    private final List<TopicPartition> localWrites = new ArrayList<>();
    private final Map<Integer, List<WriteTxnMarkersRequestData>> remoteRequests = new HashMap<>();
    /** The error each remote partition answers next (NONE when absent). */
    private final Map<TopicPartition, Errors> remoteErrors = new HashMap<>();

    private RuntimeException localError;
    private boolean coordinator = true;

    private final TxnMarkerSender sender = new TxnMarkerSender(
            SELF,
            cache,
            (tp, producerId, epoch, coordinatorEpoch, commit) -> {
                if (localError != null) {
                    return CompletableFuture.failedFuture(localError);
                }
                localWrites.add(tp);
                return CompletableFuture.completedFuture(TxnMarkerWriter.Outcome.WRITTEN);
            },
            (nodeId, request) -> {
                remoteRequests.computeIfAbsent(nodeId, n -> new ArrayList<>()).add(request);
                return CompletableFuture.completedFuture(answer(request));
            },
            scheduler);

    private WriteTxnMarkersResponseData answer(WriteTxnMarkersRequestData request) {
        List<WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult> topics = new ArrayList<>();
        for (var t : request.markers().get(0).topics()) {
            List<WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult> partitions = new ArrayList<>();
            for (int p : t.partitionIndexes()) {
                Errors e = remoteErrors.getOrDefault(new TopicPartition(t.name(), p), Errors.NONE);
                partitions.add(new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult()
                        .setPartitionIndex(p)
                        .setErrorCode(e.code()));
            }
            topics.add(new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult()
                    .setName(t.name())
                    .setPartitions(partitions));
        }
        return new WriteTxnMarkersResponseData()
                .setMarkers(List.of(new WriteTxnMarkersResponseData.WritableTxnMarkerResult()
                        .setProducerId(request.markers().get(0).producerId())
                        .setTopics(topics)));
    }

    /** Leaders: partition -> node; a partition absent from the map does not exist. */
    private void leaders(Map<TopicPartition, Integer> leaders) {
        Map<String, Map<Integer, PartitionInfo>> byTopic = new TreeMap<>();
        leaders.forEach((tp, leader) -> byTopic.computeIfAbsent(tp.topic(), t -> new TreeMap<>())
                .put(
                        tp.partition(),
                        new PartitionInfo(tp.partition(), leader, 7, new int[] {1, 2, 3}, new int[] {1, 2, 3}, 0)));
        Map<String, TopicInfo> byName = new HashMap<>();
        Map<Uuid, TopicInfo> byId = new HashMap<>();
        byTopic.forEach((name, partitions) -> {
            TopicInfo t = new TopicInfo(name, Uuid.randomUuid(), partitions, Map.of());
            byName.put(name, t);
            byId.put(t.id(), t);
        });
        List<BrokerInfo> brokers = List.of(
                new BrokerInfo(1, null, List.of()),
                new BrokerInfo(2, null, List.of()),
                new BrokerInfo(3, null, List.of()));
        cache.update(new MetadataSnapshot(1, byName, byId, brokers, Map.of(), Map.of()));
    }

    private static MarkerRequest marker(TopicPartition... partitions) {
        return new MarkerRequest("txn", 1000L, (short) 3, 5, true, Set.of(partitions));
    }

    private static List<TopicPartition> partitionsOf(WriteTxnMarkersRequestData request) {
        List<TopicPartition> out = new ArrayList<>();
        WriteTxnMarkersRequestData.WritableTxnMarker m = request.markers().get(0);
        assertThat(m.producerId()).isEqualTo(1000L);
        assertThat(m.producerEpoch()).isEqualTo((short) 3);
        assertThat(m.coordinatorEpoch()).isEqualTo(5);
        assertThat(m.transactionResult()).isTrue();
        m.topics().forEach(t -> t.partitionIndexes().forEach(p -> out.add(new TopicPartition(t.name(), p))));
        return out;
    }

    @Test
    void aPartitionLedHereIsMarkedLocallyAndTheOthersWithOneRequestPerLeader() {
        leaders(Map.of(A0, SELF, A1, 2, B0, 2));
        CompletableFuture<Void> done = sender.send(0, marker(A0, A1, B0), () -> coordinator);

        assertThat(done).isCompletedWithValue(null);
        assertThat(localWrites).containsExactly(A0);
        assertThat(remoteRequests).containsOnlyKeys(2);
        assertThat(remoteRequests.get(2)).hasSize(1);
        assertThat(partitionsOf(remoteRequests.get(2).get(0))).containsExactlyInAnyOrder(A1, B0);
    }

    @Test
    void aMarkerRefusedBecauseTheLeaderMovedIsSentAgainToTheNewLeaderUntilWritten() {
        leaders(Map.of(A0, 2, A1, 3));
        remoteErrors.put(A0, Errors.NOT_LEADER_OR_FOLLOWER);
        CompletableFuture<Void> done = sender.send(0, marker(A0, A1), () -> coordinator);

        assertThat(done).isNotDone();
        assertThat(retries).hasSize(1);
        leaders(Map.of(A0, 3, A1, 3));
        remoteErrors.clear();
        retries.poll().run();

        assertThat(done).isCompletedWithValue(null);
        assertThat(partitionsOf(remoteRequests.get(3).get(1)))
                .as("only the partition still unmarked, at its new leader")
                .containsExactly(A0);
    }

    @Test
    void aLocalMarkerThatCannotCommitIsRetried() {
        leaders(Map.of(A0, SELF));
        localError = new NotLeaderOrFollowerException("moving");
        CompletableFuture<Void> done = sender.send(0, marker(A0), () -> coordinator);
        assertThat(done).isNotDone();

        localError = null;
        retries.poll().run();
        assertThat(done).isCompletedWithValue(null);
        assertThat(localWrites).containsExactly(A0);
    }

    @Test
    void aPartitionWithoutALeaderWaitsForOne() {
        leaders(Map.of(A0, -1));
        CompletableFuture<Void> done = sender.send(0, marker(A0), () -> coordinator);
        assertThat(done).isNotDone();
        assertThat(remoteRequests).isEmpty();

        leaders(Map.of(A0, 2));
        retries.poll().run();
        assertThat(done).isCompletedWithValue(null);
    }

    @Test
    void aDeletedPartitionNeedsNoMarker() {
        leaders(Map.of(A0, 2));
        CompletableFuture<Void> done = sender.send(0, marker(A0, B0), () -> coordinator);
        assertThat(done).isCompletedWithValue(null);
        assertThat(partitionsOf(remoteRequests.get(2).get(0))).containsExactly(A0);
    }

    @Test
    void aFencedCoordinatorEpochEndsTheDeliveryWithoutRetrying() {
        leaders(Map.of(A0, 2));
        remoteErrors.put(A0, Errors.TRANSACTION_COORDINATOR_FENCED);
        CompletableFuture<Void> done = sender.send(0, marker(A0), () -> coordinator);

        assertThat(done).isCompletedExceptionally();
        assertThat(done.handle((v, e) -> TxnMarkerSender.unwrap(e)).join())
                .isInstanceOf(TransactionCoordinatorFencedException.class);
        assertThat(retries).isEmpty();
    }

    @Test
    void theDeliveryStopsOnceThisBrokerNoLongerCoordinatesTheTransaction() {
        leaders(Map.of(A0, 2));
        remoteErrors.put(A0, Errors.NOT_LEADER_OR_FOLLOWER);
        CompletableFuture<Void> done = sender.send(0, marker(A0), () -> coordinator);

        coordinator = false;
        retries.poll().run();
        assertThat(done.handle((v, e) -> TxnMarkerSender.unwrap(e)).join()).isInstanceOf(NotCoordinatorException.class);
        assertThat(remoteRequests.get(2)).hasSize(1);
    }

    @Test
    void aDroppedConnectionIsRetried() {
        leaders(Map.of(A0, 2));
        TxnMarkerSender flaky = new TxnMarkerSender(
                SELF,
                cache,
                (tp, p, e, c, commit) -> CompletableFuture.completedFuture(TxnMarkerWriter.Outcome.WRITTEN),
                new TxnMarkerSender.RemoteMarkers() {
                    int calls;

                    @Override
                    public CompletableFuture<WriteTxnMarkersResponseData> send(
                            int nodeId, WriteTxnMarkersRequestData request) {
                        return ++calls == 1
                                ? CompletableFuture.failedFuture(new RuntimeException("connection dropped"))
                                : CompletableFuture.completedFuture(answer(request));
                    }
                },
                scheduler);
        CompletableFuture<Void> done = flaky.send(0, marker(A0), () -> true);
        assertThat(done).isNotDone();
        retries.poll().run();
        assertThat(done).isCompletedWithValue(null);
    }
}
