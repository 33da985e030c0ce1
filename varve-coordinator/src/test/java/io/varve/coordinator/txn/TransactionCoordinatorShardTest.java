package io.varve.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.txn.TxnApi.AddPartitionsRequest;
import io.varve.coordinator.txn.TxnApi.EndTxnRequest;
import io.varve.coordinator.txn.TxnApi.InitProducerIdRequest;
import io.varve.coordinator.txn.TxnApi.InitProducerIdResponse;
import io.varve.coordinator.txn.TxnApi.ListFilter;
import io.varve.coordinator.txn.TxnApi.MarkerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class TransactionCoordinatorShardTest {
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition B1 = new TopicPartition("b", 1);

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final AtomicLong nextProducerId = new AtomicLong(1000);
    /** Everything written to the partition so far, to replay into a new shard. */
    private final List<CoordinatorRecord> log = new ArrayList<>();

    private TransactionCoordinatorShard shard;

    @BeforeEach
    void start() {
        shard = newShard(new TxnCoordinatorConfig(900_000, 10_000));
        shard.onLoadComplete();
    }

    private TransactionCoordinatorShard newShard(TxnCoordinatorConfig config) {
        return new TransactionCoordinatorShard(7, 3, config, clock::get, nextProducerId::getAndIncrement);
    }

    /** Persists what the shard produced, then releases its responses. */
    private <T> T run(CompletableFuture<T> f) {
        Outbox.Output out = shard.drain();
        log.addAll(out.records());
        out.complete();
        return f.join();
    }

    private InitProducerIdResponse init(String id, int timeoutMs) {
        return run(shard.initProducerId(new InitProducerIdRequest(id, timeoutMs, -1, (short) -1)));
    }

    private Errors add(String id, InitProducerIdResponse p, TopicPartition... tps) {
        return run(shard.addPartitions(new AddPartitionsRequest(id, p.producerId(), p.epoch(), Set.of(tps))));
    }

    private Errors end(String id, InitProducerIdResponse p, boolean commit) {
        return run(shard.endTxn(new EndTxnRequest(id, p.producerId(), p.epoch(), commit)));
    }

    private void flushAndWriteMarkers() {
        run(CompletableFuture.completedFuture(null));
        for (MarkerRequest m : shard.drainMarkers()) {
            shard.markersWritten(m);
        }
        run(CompletableFuture.completedFuture(null));
    }

    @Test
    void aNewTransactionalIdGetsAFreshProducerIdAtEpochZeroAndAReinitBumpsTheEpoch() {
        InitProducerIdResponse first = init("t1", 60_000);
        assertThat(first).isEqualTo(new InitProducerIdResponse(Errors.NONE, 1000, (short) 0));
        InitProducerIdResponse second = init("t1", 60_000);
        assertThat(second).isEqualTo(new InitProducerIdResponse(Errors.NONE, 1000, (short) 1));
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.EMPTY);
    }

    @Test
    void commitWritesPrepareCommitThenMarkersToEveryPartitionThenCompleteCommit() {
        InitProducerIdResponse p = init("t1", 60_000);
        assertThat(add("t1", p, A0)).isEqualTo(Errors.NONE);
        assertThat(add("t1", p, B1)).isEqualTo(Errors.NONE);
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.ONGOING);

        assertThat(end("t1", p, true)).isEqualTo(Errors.NONE);
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.PREPARE_COMMIT);
        List<MarkerRequest> markers = shard.drainMarkers();
        assertThat(markers).containsExactly(new MarkerRequest("t1", 1000, (short) 0, 3, true, Set.of(A0, B1)));
        assertThat(TxnRecordSerde.decode(log.get(log.size() - 1)).state()).isEqualTo(TxnState.PREPARE_COMMIT);

        shard.markersWritten(markers.get(0));
        run(CompletableFuture.completedFuture(null));
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        assertThat(shard.txn("t1").partitions()).isEmpty();
        assertThat(TxnRecordSerde.decode(log.get(log.size() - 1)).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        // A retried commit is answered with success; an abort now is a state error.
        assertThat(end("t1", p, true)).isEqualTo(Errors.NONE);
        assertThat(end("t1", p, false)).isEqualTo(Errors.INVALID_TXN_STATE);
    }

    @Test
    void abortWritesAbortMarkersAndANewTransactionCanFollow() {
        InitProducerIdResponse p = init("t1", 60_000);
        add("t1", p, A0);
        assertThat(end("t1", p, false)).isEqualTo(Errors.NONE);
        List<MarkerRequest> markers = shard.drainMarkers();
        assertThat(markers).singleElement().satisfies(m -> assertThat(m.commit())
                .isFalse());
        // While markers are pending the next transaction must wait.
        assertThat(add("t1", p, A0)).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        shard.markersWritten(markers.get(0));
        run(CompletableFuture.completedFuture(null));
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.COMPLETE_ABORT);
        assertThat(add("t1", p, B1)).isEqualTo(Errors.NONE);
        assertThat(shard.txn("t1").partitions()).containsExactly(B1);
    }

    @Test
    void aSecondInitFencesTheOldEpochAndAbortsItsOngoingTransaction() {
        InitProducerIdResponse old = init("t1", 60_000);
        add("t1", old, A0);
        InitProducerIdResponse retry = init("t1", 60_000);
        assertThat(retry.error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        List<MarkerRequest> markers = shard.drainMarkers();
        assertThat(markers).containsExactly(new MarkerRequest("t1", 1000, (short) 1, 3, false, Set.of(A0)));
        shard.markersWritten(markers.get(0));
        run(CompletableFuture.completedFuture(null));

        InitProducerIdResponse fresh = init("t1", 60_000);
        assertThat(fresh).isEqualTo(new InitProducerIdResponse(Errors.NONE, 1000, (short) 2));
        assertThat(add("t1", old, A0)).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(end("t1", old, true)).isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void errorsFollowKafka() {
        assertThat(init("t1", 900_001).error()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        assertThat(init("t1", 0).error()).isEqualTo(Errors.INVALID_TRANSACTION_TIMEOUT);
        InitProducerIdResponse p = init("t1", 60_000);
        InitProducerIdResponse unknown = new InitProducerIdResponse(Errors.NONE, 5, (short) 0);
        assertThat(add("nope", p, A0)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(add("t1", unknown, A0)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        assertThat(add("t1", new InitProducerIdResponse(Errors.NONE, 1000, (short) 4), A0))
                .isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(end("t1", p, true)).isEqualTo(Errors.INVALID_TXN_STATE);
        add("t1", p, A0);
        end("t1", p, true);
        assertThat(end("t1", p, true)).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(end("t1", p, false)).isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(init("t1", 60_000).error()).isEqualTo(Errors.CONCURRENT_TRANSACTIONS);
        assertThat(run(shard.describe(List.of("nope"))).get(0).error()).isEqualTo(Errors.TRANSACTIONAL_ID_NOT_FOUND);
    }

    @Test
    void anAbandonedTransactionIsAbortedWithAnEpochBumpAfterItsTimeout() {
        InitProducerIdResponse p = init("t1", 30_000);
        add("t1", p, A0);
        clock.addAndGet(10_000);
        shard.tick();
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.ONGOING);
        assertThat(shard.nextDeadlineMs()).isEqualTo(clock.get() + 10_000);
        clock.addAndGet(25_000);
        shard.tick();
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.PREPARE_ABORT);
        flushAndWriteMarkers();
        assertThat(shard.txn("t1").state()).isEqualTo(TxnState.COMPLETE_ABORT);
        assertThat(shard.txn("t1").epoch()).isEqualTo((short) 1);
        assertThat(end("t1", p, true)).isEqualTo(Errors.PRODUCER_FENCED);
    }

    @Test
    void aRestartedCoordinatorReplaysItsRecordsAndResumesMarkersOfPreparedTransactions() {
        InitProducerIdResponse p = init("t1", 60_000);
        add("t1", p, A0, B1);
        end("t1", p, true);
        InitProducerIdResponse q = init("t2", 60_000);
        add("t2", q, A0);
        assertThat(shard.drainMarkers()).hasSize(1);

        TransactionCoordinatorShard restarted = newShard(TxnCoordinatorConfig.defaults());
        log.forEach(restarted::replay);
        restarted.onLoadComplete();
        assertThat(restarted.txn("t1").state()).isEqualTo(TxnState.PREPARE_COMMIT);
        assertThat(restarted.txn("t2").state()).isEqualTo(TxnState.ONGOING);
        List<MarkerRequest> resumed = restarted.drainMarkers();
        assertThat(resumed).containsExactly(new MarkerRequest("t1", 1000, (short) 0, 3, true, Set.of(A0, B1)));
        restarted.markersWritten(resumed.get(0));
        assertThat(restarted.txn("t1").state()).isEqualTo(TxnState.COMPLETE_COMMIT);
    }

    @Test
    void describeAndListReportStateAndFilterByStateAndProducerId() {
        InitProducerIdResponse p = init("t1", 60_000);
        add("t1", p, A0);
        init("t2", 60_000);
        TxnApi.TxnDescription d = run(shard.describe(List.of("t1"))).get(0);
        assertThat(d.state()).isEqualTo(TxnState.ONGOING);
        assertThat(d.partitions()).containsExactly(A0);
        assertThat(d.txnStartMs()).isEqualTo(clock.get());

        assertThat(run(shard.list(ListFilter.all())).transactions()).hasSize(2);
        TxnApi.ListResponse ongoing = run(shard.list(new ListFilter(Set.of("Ongoing", "Bogus"), Set.of(), -1)));
        assertThat(ongoing.transactions())
                .extracting(TxnApi.ListedTxn::transactionalId)
                .containsExactly("t1");
        assertThat(ongoing.unknownStates()).containsExactly("Bogus");
        assertThat(run(shard.list(new ListFilter(Set.of(), Set.of(1001L), -1))).transactions())
                .extracting(TxnApi.ListedTxn::transactionalId)
                .containsExactly("t2");
    }

    @Test
    void verificationAcceptsOnlyPartitionsOfTheOngoingTransaction() {
        InitProducerIdResponse p = init("t1", 60_000);
        add("t1", p, A0);
        var verified = run(shard.verifyPartitions(new AddPartitionsRequest("t1", 1000, (short) 0, Set.of(A0, B1))));
        assertThat(verified).containsEntry(A0, Errors.NONE).containsEntry(B1, Errors.INVALID_TXN_STATE);
        var stale = run(shard.verifyPartitions(new AddPartitionsRequest("t1", 1000, (short) -1, Set.of(A0))));
        assertThat(stale).containsEntry(A0, Errors.PRODUCER_FENCED);
    }

    @Test
    void recordsRoundTripThroughTheBinaryFormat() {
        TxnMetadata m = new TxnMetadata(
                "tx-é", 42, 41, (short) 7, (short) 6, 60_000, TxnState.PREPARE_ABORT, Set.of(A0, B1), 123, 456);
        assertThat(TxnRecordSerde.decode(TxnRecordSerde.encode(m))).isEqualTo(m);
        assertThat(TxnRecordSerde.decode(TxnRecordSerde.tombstone("x"))).isNull();
    }
}
