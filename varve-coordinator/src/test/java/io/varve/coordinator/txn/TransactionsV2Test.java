package io.varve.coordinator.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.txn.TxnApi.AddPartitionsRequest;
import io.varve.coordinator.txn.TxnApi.EndTxnRequest;
import io.varve.coordinator.txn.TxnApi.EndTxnResponse;
import io.varve.coordinator.txn.TxnApi.InitProducerIdRequest;
import io.varve.coordinator.txn.TxnApi.InitProducerIdResponse;
import io.varve.coordinator.txn.TxnApi.MarkerRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's epoch-bump state machine of transactions v2 (KIP-890 part 2), driven by a fake clock: every
 * transaction ends at a new epoch, retries of its EndTxn are answered as the first one was, and requests of an
 * earlier transaction, however late, never end or join a later one. The last test shows the transaction version 1
 * anomaly the bump removes.
 */
class TransactionsV2Test {
    private static final TopicPartition A0 = new TopicPartition("a", 0);
    private static final TopicPartition B1 = new TopicPartition("b", 1);
    private static final String ID = "t";

    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final AtomicLong nextProducerId = new AtomicLong(1000);
    private final List<CoordinatorRecord> log = new ArrayList<>();
    private TransactionCoordinatorShard shard;

    @BeforeEach
    void start() {
        shard = newShard();
        shard.onLoadComplete();
    }

    private TransactionCoordinatorShard newShard() {
        return new TransactionCoordinatorShard(
                7, 3, new TxnCoordinatorConfig(900_000, 10_000), clock::get, nextProducerId::getAndIncrement);
    }

    private <T> T run(CompletableFuture<T> f) {
        Outbox.Output out = shard.drain();
        log.addAll(out.records());
        out.complete();
        return f.join();
    }

    private InitProducerIdResponse init() {
        return run(shard.initProducerId(new InitProducerIdRequest(ID, 60_000, -1, (short) -1)));
    }

    private Errors add(long pid, short epoch, TopicPartition... tps) {
        return run(shard.addPartitions(new AddPartitionsRequest(ID, pid, epoch, Set.of(tps))));
    }

    private EndTxnResponse endV2(long pid, short epoch, boolean commit) {
        return run(shard.end(new EndTxnRequest(ID, pid, epoch, commit, true)));
    }

    private List<MarkerRequest> writeMarkers() {
        run(CompletableFuture.completedFuture(null));
        List<MarkerRequest> markers = shard.drainMarkers();
        markers.forEach(shard::markersWritten);
        run(CompletableFuture.completedFuture(null));
        return markers;
    }

    @Test
    void aCommitBumpsTheEpochTheMarkersCarryItAndTheAnswerNamesIt() {
        InitProducerIdResponse p = init();
        assertThat(add(p.producerId(), p.epoch(), A0, B1)).isEqualTo(Errors.NONE);

        EndTxnResponse ended = endV2(p.producerId(), p.epoch(), true);

        assertThat(ended).isEqualTo(new EndTxnResponse(Errors.NONE, p.producerId(), (short) 1));
        assertThat(shard.txn(ID).state()).isEqualTo(TxnState.PREPARE_COMMIT);
        List<MarkerRequest> markers = writeMarkers();
        assertThat(markers).containsExactly(new MarkerRequest(ID, p.producerId(), (short) 1, 3, true, Set.of(A0, B1)));
        assertThat(shard.txn(ID).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        assertThat(shard.txn(ID).epoch()).isEqualTo((short) 1);
        // the next transaction runs at the new epoch
        assertThat(add(p.producerId(), (short) 1, A0)).isEqualTo(Errors.NONE);
    }

    @Test
    void aRetriedEndTxnIsAnsweredAsTheFirstWhilePreparingAndAfterCompletingAndTheOtherDecisionIsRefused() {
        InitProducerIdResponse p = init();
        add(p.producerId(), p.epoch(), A0);
        EndTxnResponse first = endV2(p.producerId(), p.epoch(), true);

        assertThat(endV2(p.producerId(), p.epoch(), true)).isEqualTo(first);
        writeMarkers();
        assertThat(endV2(p.producerId(), p.epoch(), true)).isEqualTo(first);
        assertThat(endV2(p.producerId(), p.epoch(), false).error()).isEqualTo(Errors.INVALID_TXN_STATE);
        assertThat(shard.drainMarkers()).isEmpty();
        assertThat(shard.txn(ID).state()).isEqualTo(TxnState.COMPLETE_COMMIT);
    }

    @Test
    void aDelayedEndTxnOfTheEarlierTransactionNeitherCommitsNorAbortsTheNextOne() {
        InitProducerIdResponse p = init();
        add(p.producerId(), p.epoch(), A0);
        short next = endV2(p.producerId(), p.epoch(), false).epoch();
        writeMarkers();
        assertThat(add(p.producerId(), next, A0, B1)).isEqualTo(Errors.NONE);

        // the first transaction's EndTxn (commit or abort), delivered late
        assertThat(endV2(p.producerId(), p.epoch(), true).error()).isEqualTo(Errors.PRODUCER_FENCED);
        assertThat(endV2(p.producerId(), p.epoch(), false).error()).isEqualTo(Errors.PRODUCER_FENCED);
        // and its AddPartitions, delivered late, cannot join the new one either
        assertThat(add(p.producerId(), p.epoch(), A0)).isEqualTo(Errors.PRODUCER_FENCED);

        assertThat(shard.txn(ID).state()).isEqualTo(TxnState.ONGOING);
        assertThat(shard.txn(ID).partitions()).containsExactlyInAnyOrder(A0, B1);
        assertThat(shard.drainMarkers()).isEmpty();
    }

    @Test
    void anAbortOfATransactionThatReachedNoPartitionStillBumpsTheEpochAndACommitIsRefused() {
        InitProducerIdResponse p = init();
        assertThat(endV2(p.producerId(), p.epoch(), true).error()).isEqualTo(Errors.INVALID_TXN_STATE);
        EndTxnResponse aborted = endV2(p.producerId(), p.epoch(), false);
        assertThat(aborted).isEqualTo(new EndTxnResponse(Errors.NONE, p.producerId(), (short) 1));
        assertThat(shard.txn(ID).state()).isEqualTo(TxnState.COMPLETE_ABORT);
        assertThat(shard.drainMarkers()).isEmpty();
        // retried: the same answer
        assertThat(endV2(p.producerId(), p.epoch(), false)).isEqualTo(aborted);
    }

    @Test
    void whenTheBumpUsesUpTheEpochsTheProducerContinuesWithANewIdAndTheMarkersKeepTheOldOne() {
        shard = newShard();
        short last = (short) (Short.MAX_VALUE - 2);
        shard.replay(TxnRecordSerde.encode(
                new TxnMetadata(ID, 42, -1, last, (short) (last - 1), 60_000, TxnState.ONGOING, Set.of(A0), 1, 1)));
        shard.onLoadComplete();

        EndTxnResponse ended = endV2(42, last, true);

        assertThat(ended.error()).isEqualTo(Errors.NONE);
        assertThat(ended.producerId()).isEqualTo(1000);
        assertThat(ended.epoch()).isZero();
        assertThat(writeMarkers()).containsExactly(new MarkerRequest(ID, 42, (short) (last + 1), 3, true, Set.of(A0)));
        TxnMetadata m = shard.txn(ID);
        assertThat(m.producerId()).isEqualTo(1000);
        assertThat(m.epoch()).isZero();
        assertThat(m.state()).isEqualTo(TxnState.COMPLETE_COMMIT);
        // a retry still names the old identity and gets the new one; the new identity runs the next transaction
        assertThat(endV2(42, last, true)).isEqualTo(ended);
        assertThat(add(1000, (short) 0, A0)).isEqualTo(Errors.NONE);
        assertThat(add(42, last, A0)).isEqualTo(Errors.INVALID_PRODUCER_ID_MAPPING);
        // the pending rotation survives a reload from the log
        TxnMetadata decoded = TxnRecordSerde.decode(log.get(0));
        assertThat(decoded.nextProducerId()).isEqualTo(1000);
    }

    @Test
    void withTransactionVersion1ADelayedEndTxnOfTheEarlierTransactionCommitsTheNextOne() {
        InitProducerIdResponse p = init();
        add(p.producerId(), p.epoch(), A0);
        assertThat(run(shard.endTxn(new EndTxnRequest(ID, p.producerId(), p.epoch(), false))))
                .isEqualTo(Errors.NONE);
        writeMarkers();
        add(p.producerId(), p.epoch(), B1); // the next transaction, same epoch under version 1

        // the first transaction's EndTxn, replayed late with commit=true, commits the second one prematurely
        assertThat(run(shard.endTxn(new EndTxnRequest(ID, p.producerId(), p.epoch(), true))))
                .isEqualTo(Errors.NONE);
        assertThat(shard.txn(ID).state()).isEqualTo(TxnState.PREPARE_COMMIT);
    }

    /**
     * 200 seeded schedules: a producer runs transactions while every EndTxn and AddPartitions it sends may be
     * delivered again at any later point. Each transaction must end exactly once, with the client's own decision,
     * and only by its own EndTxn. A failing seed is printed in the assertion message.
     */
    @Test
    void lateAndRepeatedRequestsNeverEndOrJoinAnotherTransactionInAnySeededSchedule() {
        for (int seed = 0; seed < 200; seed++) {
            log.clear();
            start();
            runSchedule(seed);
        }
    }

    private record Late(boolean end, long pid, short epoch, boolean commit) {}

    private void runSchedule(long seed) {
        Random random = new Random(seed);
        InitProducerIdResponse p = init();
        long pid = p.producerId();
        short epoch = p.epoch();
        List<Late> late = new ArrayList<>();
        Map<Short, Boolean> decided = new HashMap<>();
        for (int txn = 0; txn < 20; txn++) {
            add(pid, epoch, random.nextBoolean() ? A0 : B1);
            if (random.nextInt(3) == 0) {
                late.add(new Late(false, pid, epoch, false));
            }
            boolean commit = random.nextBoolean();
            decided.put(epoch, commit);
            int deliveries = 1 + random.nextInt(2);
            EndTxnResponse answer = null;
            for (int i = 0; i < deliveries; i++) {
                EndTxnResponse r = endV2(pid, epoch, commit);
                assertThat(answer == null || r.equals(answer))
                        .as("seed %d: a retry answers as the first", seed)
                        .isTrue();
                answer = r;
            }
            assertThat(answer.error()).as("seed %d", seed).isEqualTo(Errors.NONE);
            if (random.nextBoolean()) {
                late.add(new Late(true, pid, epoch, random.nextBoolean()));
            }
            if (random.nextBoolean()) {
                writeMarkers();
            }
            // deliver some late requests now, in the middle of whatever runs
            while (!late.isEmpty() && random.nextInt(3) == 0) {
                Late l = late.remove(random.nextInt(late.size()));
                if (l.end()) {
                    endV2(l.pid(), l.epoch(), l.commit());
                } else {
                    add(l.pid(), l.epoch(), A0);
                }
            }
            writeMarkers();
            pid = answer.producerId();
            epoch = answer.epoch();
        }
        // every PREPARE record ended the transaction of its previous epoch with that transaction's own decision
        Map<Short, Integer> ends = new HashMap<>();
        for (CoordinatorRecord record : log) {
            TxnMetadata m = TxnRecordSerde.decode(record);
            if (m.state().isPrepare()) {
                ends.merge(m.lastEpoch(), 1, Integer::sum);
                assertThat(m.state() == TxnState.PREPARE_COMMIT)
                        .as("seed %d: the transaction at epoch %d ends as its client decided", seed, m.lastEpoch())
                        .isEqualTo(decided.get(m.lastEpoch()));
            }
        }
        assertThat(ends).as("seed %d: each transaction ends once", seed).hasSize(20);
        assertThat(ends.values()).as("seed %d", seed).allMatch(n -> n == 1);
    }
}
