package io.varve.broker.txn;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.group.FindCoordinatorHandler;
import io.varve.broker.group.OffsetsPartitionIo;
import io.varve.broker.group.TransactionVerifier;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.replica.ProducerIdManager;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.txn.TransactionCoordinatorShard;
import io.varve.coordinator.txn.TxnApi;
import io.varve.coordinator.txn.TxnApi.MarkerRequest;
import io.varve.storage.PartitionLog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link TransactionCoordinatorShard} per {@code __transaction_state} partition this broker leads, all on
 * one coordinator thread (transactions are few and their events cheap). After every event the runtime appends the
 * shard's records to the partition log, releases the responses, then writes the transaction markers the shard asked
 * for and reports them back, which persists the COMPLETE_* state. Loading a partition replays its log; prepared
 * transactions found there get their markers again. The internal topic is created through the controller on the
 * first FindCoordinator of a transactional id, as Kafka does.
 */
public final class TransactionCoordinatorRuntime
        implements AutoCloseable, FindCoordinatorHandler.Coordinators, TransactionVerifier {
    public static final String TOPIC = "__transaction_state";
    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinatorRuntime.class);
    private static final long MARKER_RETRY_MS = 500;
    private static final long PRODUCER_ID_TIMEOUT_MS = 30_000;

    private enum State {
        LOADING,
        ACTIVE,
        FAILED
    }

    /** A shard; fields other than {@code state} are confined to the coordinator thread. */
    private static final class Holder {
        final int partition;
        volatile State state = State.LOADING;
        TransactionCoordinatorShard shard;

        Holder(int partition) {
            this.partition = partition;
        }
    }

    private final TxnCoordinatorSettings settings;
    private final CoordinatorTopic topic;
    private final ProducerIdManager producerIds;
    private final TxnMarkerWriter markerWriter;
    private final ScheduledThreadPoolExecutor thread;
    private final Map<Integer, Holder> shards = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** {@code offsetsMarkers}: told of every marker written to a {@code __consumer_offsets} partition. */
    public TransactionCoordinatorRuntime(
            int nodeId,
            TxnCoordinatorSettings settings,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller,
            ProducerIdManager producerIds,
            TxnMarkerWriter.OffsetsMarkerListener offsetsMarkers) {
        this.settings = settings;
        this.topic = new CoordinatorTopic(
                TOPIC,
                nodeId,
                settings.topicPartitions(),
                settings.topicReplicationFactor(),
                Map.of("cleanup.policy", "compact", "segment.bytes", Integer.toString(settings.topicSegmentBytes())),
                cache,
                replicaManager,
                controller);
        this.producerIds = producerIds;
        this.markerWriter = new TxnMarkerWriter(cache, replicaManager, offsetsMarkers);
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "varve-txn-coordinator");
            t.setDaemon(true);
            return t;
        });
        thread.setRemoveOnCancelPolicy(true);
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Loads the {@code __transaction_state} partitions this broker leads and starts the timeout checks. */
    public void startup() {
        loadLedPartitions();
        long intervalMs = settings.coordinator().abortTimedOutCheckIntervalMs();
        thread.scheduleWithFixedDelay(this::tickAll, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    public TxnCoordinatorSettings settings() {
        return settings;
    }

    public TxnMarkerWriter markerWriter() {
        return markerWriter;
    }

    // ---------------------------------------------------------------- routing

    /** Kafka's mapping: abs(transactionalId.hashCode()) modulo the partition count. */
    public int partitionFor(String transactionalId) {
        return topic.partitionFor(transactionalId);
    }

    public int numPartitions() {
        return topic.numPartitions();
    }

    /** Runs an event on the shard of {@code transactionalId}; NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS otherwise. */
    public <T> CompletableFuture<T> run(
            String transactionalId, Function<TransactionCoordinatorShard, CompletableFuture<T>> event) {
        return run(partitionFor(transactionalId), event);
    }

    public <T> CompletableFuture<T> run(
            int partition, Function<TransactionCoordinatorShard, CompletableFuture<T>> event) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Holder h;
        try {
            h = holder(partition);
        } catch (ApiException e) {
            result.completeExceptionally(e);
            return result;
        }
        execute(result, () -> {
            if (h.state != State.ACTIVE) {
                result.completeExceptionally(
                        h.state == State.LOADING
                                ? new CoordinatorLoadInProgressException(TOPIC + "-" + partition + " is loading.")
                                : new NotCoordinatorException(
                                        "This broker no longer coordinates " + TOPIC + "-" + partition + "."));
                return;
            }
            try {
                event.apply(h.shard).whenComplete((v, e) -> {
                    if (e != null) {
                        result.completeExceptionally(e);
                    } else {
                        result.complete(v);
                    }
                });
            } catch (RuntimeException e) {
                log.error("Transaction coordinator event on {}-{} failed", TOPIC, partition, e);
                result.completeExceptionally(e);
            }
            flush(h);
        });
        return result;
    }

    /** Runs an event on every shard this broker leads and collects the results. */
    public <T> CompletableFuture<List<T>> runOnAll(Function<TransactionCoordinatorShard, CompletableFuture<T>> event) {
        List<CompletableFuture<T>> all = new ArrayList<>();
        for (int partition : topic.ledPartitions()) {
            all.add(run(partition, event));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> all.stream().map(CompletableFuture::join).toList());
    }

    private void execute(CompletableFuture<?> result, Runnable task) {
        try {
            thread.execute(task);
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new NotCoordinatorException("The transaction coordinator is shut down."));
        }
    }

    private Holder holder(int partition) {
        if (closed) {
            throw new NotCoordinatorException("The transaction coordinator is shut down.");
        }
        Holder h = shards.get(partition);
        if (h != null) {
            return h;
        }
        topic.requireLeader(partition);
        return startLoad(partition);
    }

    // ---------------------------------------------------------------- loading

    private void loadLedPartitions() {
        topic.ledPartitions().forEach(this::startLoad);
    }

    private Holder startLoad(int partition) {
        Holder[] created = new Holder[1];
        Holder h = shards.computeIfAbsent(partition, p -> created[0] = new Holder(p));
        if (created[0] != null) {
            execute(new CompletableFuture<>(), () -> load(h));
        }
        return h;
    }

    private void load(Holder h) {
        long startNanos = System.nanoTime();
        TopicPartition tp = new TopicPartition(TOPIC, h.partition);
        try {
            PartitionLog partitionLog = topic.leaderLog(h.partition);
            int coordinatorEpoch = topic.leaderEpoch(h.partition);
            TransactionCoordinatorShard shard = new TransactionCoordinatorShard(
                    h.partition,
                    coordinatorEpoch,
                    settings.coordinator(),
                    System::currentTimeMillis,
                    this::nextProducerId);
            long records = OffsetsPartitionIo.replay(partitionLog, partitionLog.logEndOffset(), shard::replay);
            shard.onLoadComplete();
            h.shard = shard;
            h.state = State.ACTIVE;
            flush(h);
            log.info(
                    "Loaded {} ({} records, {} transactional ids) in {} ms",
                    tp,
                    records,
                    shard.size(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        } catch (RuntimeException e) {
            if (e instanceof org.apache.kafka.common.errors.RetriableException) {
                // e.g. the partition's log is still being created: nothing is wrong, the next request loads it
                log.info("Loading {} deferred ({}); it is retried on the next request", tp, e.getMessage());
            } else {
                log.error("Loading {} failed; it will be retried on the next request", tp, e);
            }
            h.state = State.FAILED;
            shards.remove(h.partition, h);
        }
    }

    /** A fresh producer id; blocks the coordinator thread only when a new block is fetched from the controller. */
    private long nextProducerId() {
        try {
            return producerIds.nextProducerId().get(PRODUCER_ID_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordinatorNotAvailableException("Interrupted while allocating a producer id.");
        } catch (ExecutionException | TimeoutException e) {
            throw new CoordinatorNotAvailableException("Allocating a producer id failed: " + e);
        }
    }

    // ---------------------------------------------------------------- writing, markers and timers

    /** Appends the shard's records, releases its responses, then writes the markers it asked for. */
    private void flush(Holder h) {
        Outbox.Output out = h.shard.drain();
        if (!out.records().isEmpty()) {
            try {
                topic.append(h.partition, out.records());
            } catch (RuntimeException e) {
                log.error(
                        "Writing {} transaction coordinator records to {}-{} failed: unloading the shard, it "
                                + "reloads from the log on the next request",
                        out.records().size(),
                        TOPIC,
                        h.partition,
                        e);
                out.fail(new NotCoordinatorException("Writing to " + TOPIC + "-" + h.partition + " failed."));
                h.state = State.FAILED;
                shards.remove(h.partition, h);
                h.shard.drainMarkers();
                return;
            }
        }
        out.complete();
        List<MarkerRequest> markers = h.shard.drainMarkers();
        if (!markers.isEmpty()) {
            writeMarkers(h, markers);
        }
    }

    /**
     * Writes every marker, completes the transactions whose markers are all written, and retries later the
     * partitions whose marker failed (only those: a written marker is not written twice).
     */
    private void writeMarkers(Holder h, List<MarkerRequest> markers) {
        List<MarkerRequest> failed = new ArrayList<>();
        for (MarkerRequest m : markers) {
            Set<TopicPartition> remaining = new HashSet<>();
            RuntimeException lastError = null;
            for (TopicPartition tp : m.partitions()) {
                try {
                    markerWriter.write(tp, m.producerId(), m.epoch(), m.coordinatorEpoch(), m.commit());
                } catch (RuntimeException e) {
                    remaining.add(tp);
                    lastError = e;
                }
            }
            if (remaining.isEmpty()) {
                h.shard.markersWritten(m);
            } else {
                log.warn(
                        "Writing the {} markers of {} to {} of {} partitions failed ({}); retrying in {} ms",
                        m.commit() ? "COMMIT" : "ABORT",
                        m.transactionalId(),
                        remaining.size(),
                        m.partitions().size(),
                        lastError.toString(),
                        MARKER_RETRY_MS);
                failed.add(new MarkerRequest(
                        m.transactionalId(), m.producerId(), m.epoch(), m.coordinatorEpoch(), m.commit(), remaining));
            }
        }
        flush(h);
        if (!failed.isEmpty() && !closed) {
            try {
                thread.schedule(
                        () -> {
                            if (h.state == State.ACTIVE && shards.get(h.partition) == h) {
                                writeMarkers(h, failed);
                            }
                        },
                        MARKER_RETRY_MS,
                        TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // shutting down: the markers are resumed from the PREPARE_* records at the next load
            }
        }
    }

    private void tickAll() {
        for (Holder h : shards.values()) {
            if (h.state != State.ACTIVE) {
                continue;
            }
            try {
                h.shard.tick();
            } catch (RuntimeException e) {
                log.error("Transaction timeouts of {}-{} failed", TOPIC, h.partition, e);
            }
            flush(h);
        }
    }

    // ---------------------------------------------------------------- verification

    /**
     * Whether {@code partition} is in the producer's ongoing transaction (AddPartitionsToTxn's verifyOnly check):
     * NONE, INVALID_TXN_STATE, or the producer's error (PRODUCER_FENCED, INVALID_PRODUCER_ID_MAPPING...).
     */
    @Override
    public CompletableFuture<Errors> verifyInTransaction(
            String transactionalId, long producerId, short producerEpoch, TopicPartition partition) {
        TxnApi.AddPartitionsRequest r =
                new TxnApi.AddPartitionsRequest(transactionalId, producerId, producerEpoch, Set.of(partition));
        return run(transactionalId, shard -> shard.verifyPartitions(r))
                .handle((errors, e) -> e != null ? TxnHandlers.errorOf(e) : errors.get(partition));
    }

    // ---------------------------------------------------------------- the internal topic

    /** Completes once {@code __transaction_state} exists, creating it through the controller if needed. */
    @Override
    public CompletableFuture<Void> ensureTopic() {
        return topic.ensureExists(this::loadLedPartitions);
    }

    /** The node coordinating {@code transactionalId}: the leader of its partition, or -1 when there is none. */
    @Override
    public int coordinatorNode(String transactionalId) {
        return topic.coordinatorNode(transactionalId);
    }

    @Override
    public void close() {
        closed = true;
        thread.shutdown();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        shards.clear();
    }
}
