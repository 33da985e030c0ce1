package io.varve.coordinator.txn;

import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.CoordinatorShard;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.txn.TxnApi.AddPartitionsRequest;
import io.varve.coordinator.txn.TxnApi.EndTxnRequest;
import io.varve.coordinator.txn.TxnApi.EndTxnResponse;
import io.varve.coordinator.txn.TxnApi.InitProducerIdRequest;
import io.varve.coordinator.txn.TxnApi.InitProducerIdResponse;
import io.varve.coordinator.txn.TxnApi.ListFilter;
import io.varve.coordinator.txn.TxnApi.ListResponse;
import io.varve.coordinator.txn.TxnApi.MarkerRequest;
import io.varve.coordinator.txn.TxnApi.TxnDescription;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator of one {@code __transaction_state} partition: every transactional id that hashes to
 * it. A pure state machine used from one thread. Each event changes the in-memory state at once and leaves, in
 * order, the records to persist and the responses to release ({@link #drain()}: write the records, then complete)
 * and the transaction markers to write ({@link #drainMarkers()}, after the records are durable). The caller reports
 * written markers with {@link #markersWritten}, which completes the transaction. Two-phase commit as Kafka's: EndTxn
 * writes PREPARE_COMMIT/PREPARE_ABORT and answers; markers follow; COMPLETE_* last. With transactions v2 (EndTxn v5,
 * {@link TransactionsV2}) the PREPARE_* record already carries the bumped epoch, and the markers too.
 */
public final class TransactionCoordinatorShard implements CoordinatorShard {
    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinatorShard.class);

    private final int partition;
    private final int coordinatorEpoch;
    private final TxnCoordinatorConfig config;
    private final LongSupplier clock;
    private final LongSupplier producerIds;
    private final Map<String, TxnMetadata> txns = new TreeMap<>();
    private final Outbox outbox = new Outbox();
    private List<MarkerRequest> markers = new ArrayList<>();
    private boolean loaded;
    private long nextAbortCheckMs = Long.MAX_VALUE;

    /**
     * @param coordinatorEpoch the leader epoch of the partition, written into every marker
     * @param producerIds      hands out fresh producer ids (never repeating)
     */
    public TransactionCoordinatorShard(
            int partition,
            int coordinatorEpoch,
            TxnCoordinatorConfig config,
            LongSupplier clock,
            LongSupplier producerIds) {
        this.partition = partition;
        this.coordinatorEpoch = coordinatorEpoch;
        this.config = config;
        this.clock = clock;
        this.producerIds = producerIds;
    }

    public int partition() {
        return partition;
    }

    public int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    // ---------------------------------------------------------------- loading

    /** Applies one record read back from the partition, in log order, before {@link #onLoadComplete()}. */
    public void replay(CoordinatorRecord record) {
        if (loaded) {
            throw new IllegalStateException("__transaction_state-" + partition + " replays a record after loading");
        }
        TxnMetadata m = TxnRecordSerde.decode(record);
        if (m == null) {
            txns.remove(TxnRecordSerde.decodeKey(record.key()));
        } else {
            txns.put(m.transactionalId(), m);
        }
    }

    /** Resumes the markers of every transaction left in PREPARE_COMMIT/PREPARE_ABORT and starts the timeout check. */
    public void onLoadComplete() {
        int resumed = 0;
        for (TxnMetadata m : txns.values()) {
            if (m.state().isPrepare()) {
                markers.add(markerRequest(m));
                resumed++;
            }
        }
        loaded = true;
        nextAbortCheckMs = clock.getAsLong() + config.abortTimedOutCheckIntervalMs();
        log.info(
                "Transaction coordinator of __transaction_state-{} loaded {} transactional ids, resuming {} "
                        + "transactions to complete",
                partition,
                txns.size(),
                resumed);
    }

    // ---------------------------------------------------------------- producer identity

    public CompletableFuture<InitProducerIdResponse> initProducerId(InitProducerIdRequest r) {
        if (r.timeoutMs() <= 0 || r.timeoutMs() > config.maxTimeoutMs()) {
            return outbox.respond(InitProducerIdResponse.error(Errors.INVALID_TRANSACTION_TIMEOUT));
        }
        long now = clock.getAsLong();
        TxnMetadata m = txns.get(r.transactionalId());
        if (m == null) {
            long producerId = producerIds.getAsLong();
            TxnMetadata created = new TxnMetadata(
                    r.transactionalId(),
                    producerId,
                    -1,
                    (short) 0,
                    (short) -1,
                    r.timeoutMs(),
                    TxnState.EMPTY,
                    Set.of(),
                    -1,
                    now);
            write(created);
            log.info("Transactional id {} gets producer id {} epoch 0", r.transactionalId(), producerId);
            return respondAfterWrite(new InitProducerIdResponse(Errors.NONE, producerId, (short) 0));
        }
        if (r.producerId() >= 0) {
            boolean current = r.producerId() == m.producerId() && r.epoch() == m.epoch();
            boolean retried = r.producerId() == m.lastProducerId()
                    || (r.producerId() == m.producerId() && r.epoch() == m.lastEpoch());
            if (retried && m.state() == TxnState.EMPTY) {
                // A retry of an InitProducerId that already bumped: answer with the identity it got.
                return outbox.respond(new InitProducerIdResponse(Errors.NONE, m.producerId(), m.epoch()));
            }
            if (!current && !retried) {
                return outbox.respond(InitProducerIdResponse.error(Errors.PRODUCER_FENCED));
            }
        }
        switch (m.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE, DEAD -> {
                return outbox.respond(InitProducerIdResponse.error(Errors.CONCURRENT_TRANSACTIONS));
            }
            case ONGOING -> {
                // Fence the old producer: bump the epoch and abort its transaction; the client retries.
                fenceAndAbort(m, now, "fenced by a new producer instance");
                return outbox.respond(InitProducerIdResponse.error(Errors.CONCURRENT_TRANSACTIONS));
            }
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> {
                TxnMetadata bumped = bumpEpoch(m, r.timeoutMs(), now);
                write(bumped);
                log.info(
                        "Transactional id {} moves to producer id {} epoch {}",
                        m.transactionalId(),
                        bumped.producerId(),
                        bumped.epoch());
                return respondAfterWrite(new InitProducerIdResponse(Errors.NONE, bumped.producerId(), bumped.epoch()));
            }
            default -> throw new IllegalStateException("unhandled state " + m.state());
        }
    }

    /** A new epoch (or, when epochs are used up, a new producer id at epoch 0), state Empty, no partitions. */
    private TxnMetadata bumpEpoch(TxnMetadata m, int timeoutMs, long now) {
        if (m.epoch() >= Short.MAX_VALUE - 1) {
            long producerId = producerIds.getAsLong();
            return new TxnMetadata(
                    m.transactionalId(),
                    producerId,
                    m.producerId(),
                    (short) 0,
                    (short) -1,
                    timeoutMs,
                    TxnState.EMPTY,
                    Set.of(),
                    -1,
                    now);
        }
        return new TxnMetadata(
                m.transactionalId(),
                m.producerId(),
                m.lastProducerId(),
                (short) (m.epoch() + 1),
                m.epoch(),
                timeoutMs,
                TxnState.EMPTY,
                Set.of(),
                -1,
                now);
    }

    /** Bumps the epoch of an ongoing transaction and starts its abort with the new epoch. */
    private void fenceAndAbort(TxnMetadata m, long now, String reason) {
        if (m.epoch() >= Short.MAX_VALUE - 1) {
            throw new IllegalStateException(m.transactionalId() + ": producer epoch exhausted during a transaction");
        }
        TxnMetadata aborting = new TxnMetadata(
                m.transactionalId(),
                m.producerId(),
                m.lastProducerId(),
                (short) (m.epoch() + 1),
                m.epoch(),
                m.timeoutMs(),
                TxnState.PREPARE_ABORT,
                m.partitions(),
                m.txnStartMs(),
                now);
        write(aborting);
        markers.add(markerRequest(aborting));
        log.info(
                "Transaction of {} (producer id {} epoch {}) aborts: {}",
                m.transactionalId(),
                m.producerId(),
                m.epoch(),
                reason);
    }

    // ---------------------------------------------------------------- the transaction

    /** AddPartitionsToTxn (v0-3): the error for every partition. */
    public CompletableFuture<Errors> addPartitions(AddPartitionsRequest r) {
        TxnMetadata m = txns.get(r.transactionalId());
        Errors error = checkProducer(m, r.producerId(), r.epoch());
        if (error != Errors.NONE) {
            return outbox.respond(error);
        }
        if (m.state().isPrepare() || m.state() == TxnState.PREPARE_EPOCH_FENCE || m.state() == TxnState.DEAD) {
            return outbox.respond(Errors.CONCURRENT_TRANSACTIONS);
        }
        if (r.partitions().isEmpty()
                || (m.state() == TxnState.ONGOING && m.partitions().containsAll(r.partitions()))) {
            return outbox.respond(Errors.NONE);
        }
        long now = clock.getAsLong();
        Set<TopicPartition> partitions = new HashSet<>(m.state() == TxnState.ONGOING ? m.partitions() : Set.of());
        partitions.addAll(r.partitions());
        long startMs = m.state() == TxnState.ONGOING ? m.txnStartMs() : now;
        write(new TxnMetadata(
                m.transactionalId(),
                m.producerId(),
                m.lastProducerId(),
                m.epoch(),
                m.lastEpoch(),
                m.timeoutMs(),
                TxnState.ONGOING,
                partitions,
                startMs,
                now));
        return respondAfterWrite(Errors.NONE);
    }

    /**
     * The broker-side verification (AddPartitionsToTxn v4+ with verifyOnly): NONE for every partition already in
     * the producer's ongoing transaction, INVALID_TXN_STATE for the others; producer errors for all.
     */
    public CompletableFuture<Map<TopicPartition, Errors>> verifyPartitions(AddPartitionsRequest r) {
        TxnMetadata m = txns.get(r.transactionalId());
        Errors error = checkProducer(m, r.producerId(), r.epoch());
        Map<TopicPartition, Errors> out = new TreeMap<>((a, b) -> a.topic().equals(b.topic())
                ? Integer.compare(a.partition(), b.partition())
                : a.topic().compareTo(b.topic()));
        for (TopicPartition tp : r.partitions()) {
            out.put(
                    tp,
                    error != Errors.NONE
                            ? error
                            : m.state() == TxnState.ONGOING && m.partitions().contains(tp)
                                    ? Errors.NONE
                                    : Errors.INVALID_TXN_STATE);
        }
        return outbox.respond(out);
    }

    /** EndTxn before v5 (transaction version 1): the error only. */
    public CompletableFuture<Errors> endTxn(EndTxnRequest r) {
        return end(r).thenApply(EndTxnResponse::error);
    }

    /**
     * EndTxn: with {@link EndTxnRequest#v2()} (EndTxn v5) the rules of {@link TransactionsV2}, answering the identity
     * the producer continues with; otherwise transaction version 1 (the epoch stays, the answer is the error).
     */
    public CompletableFuture<EndTxnResponse> end(EndTxnRequest r) {
        if (r.v2()) {
            return endV2(r);
        }
        TxnMetadata m = txns.get(r.transactionalId());
        Errors error = checkProducer(m, r.producerId(), r.epoch());
        if (error != Errors.NONE) {
            return outbox.respond(EndTxnResponse.error(error));
        }
        boolean commit = r.commit();
        Errors result =
                switch (m.state()) {
                    case ONGOING -> {
                        prepare(
                                m,
                                m.withState(
                                        commit ? TxnState.PREPARE_COMMIT : TxnState.PREPARE_ABORT, clock.getAsLong()));
                        yield Errors.NONE;
                    }
                    case COMPLETE_COMMIT -> commit ? Errors.NONE : Errors.INVALID_TXN_STATE;
                    case COMPLETE_ABORT -> commit ? Errors.INVALID_TXN_STATE : Errors.NONE;
                    case PREPARE_COMMIT -> commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE;
                    case PREPARE_ABORT -> commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS;
                    case EMPTY -> Errors.INVALID_TXN_STATE;
                    case DEAD, PREPARE_EPOCH_FENCE -> Errors.INVALID_PRODUCER_EPOCH;
                };
        return outbox.respond(new EndTxnResponse(result, m.producerId(), m.epoch()));
    }

    private CompletableFuture<EndTxnResponse> endV2(EndTxnRequest r) {
        TxnMetadata m = txns.get(r.transactionalId());
        if (m != null && TransactionsV2.isRetryOfEnded(m, r.producerId(), r.epoch())) {
            return outbox.respond(TransactionsV2.answerRetry(m, r.commit()));
        }
        Errors error = checkProducer(m, r.producerId(), r.epoch());
        if (error != Errors.NONE) {
            return outbox.respond(EndTxnResponse.error(error));
        }
        long now = clock.getAsLong();
        long nextProducerId = TransactionsV2.bumpExhaustsEpochs(m) ? producerIds.getAsLong() : -1;
        switch (m.state()) {
            case ONGOING -> {
                TxnMetadata prepared = TransactionsV2.endWithBump(
                        m, r.commit() ? TxnState.PREPARE_COMMIT : TxnState.PREPARE_ABORT, nextProducerId, now);
                prepare(m, prepared);
                return outbox.respond(TransactionsV2.continueWith(prepared));
            }
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> {
                if (r.commit()) {
                    return outbox.respond(EndTxnResponse.error(Errors.INVALID_TXN_STATE));
                }
                // An abort of a transaction that reached no partition: nothing to mark, but the epoch still moves on.
                TxnMetadata bumped = TransactionsV2.endWithBump(m, TxnState.COMPLETE_ABORT, nextProducerId, now);
                TxnMetadata aborted = TransactionsV2.completed(bumped, TxnState.COMPLETE_ABORT, now);
                write(aborted);
                return outbox.respond(TransactionsV2.continueWith(bumped));
            }
            case PREPARE_COMMIT, PREPARE_ABORT -> {
                return outbox.respond(EndTxnResponse.error(Errors.CONCURRENT_TRANSACTIONS));
            }
            default -> {
                return outbox.respond(EndTxnResponse.error(Errors.INVALID_PRODUCER_EPOCH));
            }
        }
    }

    /** Writes the PREPARE_* record of {@code m} and queues its markers. */
    private void prepare(TxnMetadata m, TxnMetadata prepared) {
        write(prepared);
        markers.add(markerRequest(prepared));
        log.debug(
                "Transaction of {} (producer id {} epoch {}) prepares to {} {} partitions at epoch {}",
                m.transactionalId(),
                m.producerId(),
                m.epoch(),
                prepared.state() == TxnState.PREPARE_COMMIT ? "commit" : "abort",
                m.partitions().size(),
                prepared.epoch());
    }

    /** The markers of a prepared transaction are all written: it completes. Stale reports are ignored. */
    public void markersWritten(MarkerRequest done) {
        TxnMetadata m = txns.get(done.transactionalId());
        if (m == null
                || m.producerId() != done.producerId()
                || m.epoch() != done.epoch()
                || !m.state().isPrepare()) {
            log.debug("Ignoring a stale marker completion of {}", done.transactionalId());
            return;
        }
        TxnState complete = m.state() == TxnState.PREPARE_COMMIT ? TxnState.COMPLETE_COMMIT : TxnState.COMPLETE_ABORT;
        write(TransactionsV2.completed(m, complete, clock.getAsLong()));
        log.debug(
                "Transaction of {} (producer id {} epoch {}) is {}",
                m.transactionalId(),
                m.producerId(),
                m.epoch(),
                complete.displayName());
    }

    private Errors checkProducer(TxnMetadata m, long producerId, short epoch) {
        if (m == null || m.producerId() != producerId) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (epoch < m.epoch()) {
            return Errors.PRODUCER_FENCED;
        }
        if (epoch != m.epoch()) {
            return Errors.INVALID_PRODUCER_EPOCH;
        }
        return Errors.NONE;
    }

    private static MarkerRequest markerRequest(TxnMetadata m, int coordinatorEpoch) {
        return new MarkerRequest(
                m.transactionalId(),
                m.producerId(),
                m.epoch(),
                coordinatorEpoch,
                m.state() == TxnState.PREPARE_COMMIT,
                m.partitions());
    }

    private MarkerRequest markerRequest(TxnMetadata m) {
        return markerRequest(m, coordinatorEpoch);
    }

    // ---------------------------------------------------------------- admin

    public CompletableFuture<List<TxnDescription>> describe(List<String> transactionalIds) {
        return outbox.respond(TxnListings.describe(txns, transactionalIds));
    }

    /** Transactions matching every filter; state names are Kafka's (case-insensitive), unknown ones reported. */
    public CompletableFuture<ListResponse> list(ListFilter filter) {
        return outbox.respond(TxnListings.list(txns.values(), filter, clock.getAsLong()));
    }

    // ---------------------------------------------------------------- time

    /** Aborts, with an epoch bump, every ongoing transaction older than its timeout, when the check is due. */
    @Override
    public void tick() {
        long now = clock.getAsLong();
        if (now < nextAbortCheckMs) {
            return;
        }
        nextAbortCheckMs = now + config.abortTimedOutCheckIntervalMs();
        for (TxnMetadata m : List.copyOf(txns.values())) {
            if (m.state() == TxnState.ONGOING && now - m.txnStartMs() > m.timeoutMs()) {
                fenceAndAbort(m, now, "timed out after " + m.timeoutMs() + " ms");
            }
        }
    }

    @Override
    public long nextDeadlineMs() {
        return nextAbortCheckMs;
    }

    // ---------------------------------------------------------------- output

    @Override
    public Outbox.Output drain() {
        return outbox.drain();
    }

    /** Markers to write, once the records drained before them are durable. */
    public List<MarkerRequest> drainMarkers() {
        List<MarkerRequest> out = markers;
        markers = new ArrayList<>();
        return out;
    }

    /**
     * {@link #drainMarkers()} parked in the outbox: the future completes with the markers once the records drained
     * with them are committed, and fails when they cannot be (the shard unloads; the next leader resumes them from
     * the PREPARE_* records). Empty when there are no markers to write.
     */
    public java.util.Optional<CompletableFuture<List<MarkerRequest>>> drainMarkersAfterCommit() {
        List<MarkerRequest> out = drainMarkers();
        return out.isEmpty() ? java.util.Optional.empty() : java.util.Optional.of(outbox.respond(out));
    }

    /** Markers of every transaction still waiting for them (to retry after a failed write). */
    public List<MarkerRequest> pendingMarkers() {
        List<MarkerRequest> out = new ArrayList<>();
        for (TxnMetadata m : txns.values()) {
            if (m.state().isPrepare()) {
                out.add(markerRequest(m));
            }
        }
        return out;
    }

    private void write(TxnMetadata m) {
        txns.put(m.transactionalId(), m);
        outbox.append(TxnRecordSerde.encode(m));
    }

    private <T> CompletableFuture<T> respondAfterWrite(T value) {
        return outbox.respond(value);
    }

    // ---------------------------------------------------------------- inspection

    public TxnMetadata txn(String transactionalId) {
        return txns.get(transactionalId);
    }

    public int size() {
        return txns.size();
    }
}
