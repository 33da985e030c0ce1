package io.varve.broker.txn;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.group.CoordinatorThreads;
import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.group.FindCoordinatorHandler;
import io.varve.broker.group.OffsetsPartitionIo;
import io.varve.broker.group.TransactionVerifier;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.replica.LeadershipListener;
import io.varve.broker.replica.ProducerIdManager;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.runtime.CoordinatorLoader;
import io.varve.coordinator.runtime.CoordinatorRuntime;
import io.varve.coordinator.txn.TransactionCoordinatorShard;
import io.varve.coordinator.txn.TxnApi;
import io.varve.coordinator.txn.TxnApi.MarkerRequest;
import io.varve.storage.PartitionLog;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator in the broker: a {@link CoordinatorRuntime} of {@link TransactionCoordinatorShard}s,
 * one per {@code __transaction_state} partition this broker leads (loaded and unloaded on the replica manager's
 * leadership events, the leader epoch being the coordinator epoch), all on one thread (transactions are few and
 * their events cheap). Answers leave once their records are committed; so do the markers a shard asks for: once its
 * PREPARE_* record is committed, the {@link TxnMarkerSender} writes them to every partition's leader, and when all
 * are written the shard writes COMPLETE_*. A shard that loads resumes the markers of the transactions it finds
 * prepared. The internal topic is created through the controller on the first FindCoordinator of a transactional
 * id, as Kafka does.
 */
public final class TransactionCoordinatorRuntime
        implements AutoCloseable, FindCoordinatorHandler.Coordinators, TransactionVerifier {
    public static final String TOPIC = "__transaction_state";
    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinatorRuntime.class);
    private static final long PRODUCER_ID_TIMEOUT_MS = 30_000;
    /** Events waiting or running at once. */
    static final int MAX_PENDING_EVENTS = 100_000;

    private final TxnCoordinatorSettings settings;
    private final CoordinatorTopic topic;
    private final ProducerIdManager producerIds;
    private final ReplicaManager replicaManager;
    private final TxnMarkerWriter markerWriter;
    private final TxnMarkerSender markerSender;
    private final CoordinatorThreads thread;
    private final CoordinatorRuntime<TransactionCoordinatorShard> runtime;

    /**
     * {@code offsetsMarkers}: told of every marker committed to a {@code __consumer_offsets} partition here;
     * {@code remoteMarkers}: WriteTxnMarkers to the other brokers.
     */
    public TransactionCoordinatorRuntime(
            int nodeId,
            TxnCoordinatorSettings settings,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller,
            ProducerIdManager producerIds,
            TxnMarkerWriter.OffsetsMarkerListener offsetsMarkers,
            TxnMarkerSender.RemoteMarkers remoteMarkers) {
        this.settings = settings;
        this.replicaManager = replicaManager;
        this.topic = new CoordinatorTopic(
                TOPIC,
                nodeId,
                settings.topicPartitions(),
                settings.topicReplicationFactor(),
                "transaction.state.log.replication.factor",
                settings.topicMinInsyncReplicas(),
                Map.of("cleanup.policy", "compact", "segment.bytes", Integer.toString(settings.topicSegmentBytes())),
                cache,
                replicaManager,
                controller);
        this.producerIds = producerIds;
        this.markerWriter = new TxnMarkerWriter(cache, replicaManager, offsetsMarkers);
        this.thread = new CoordinatorThreads("varve-txn-coordinator", 1);
        this.markerSender = new TxnMarkerSender(nodeId, cache, markerWriter::write, remoteMarkers, thread);
        this.runtime = new CoordinatorRuntime<>(
                TOPIC,
                thread,
                this::load,
                topic::write,
                System::currentTimeMillis,
                this::sendMarkersOnceCommitted,
                MAX_PENDING_EVENTS);
    }

    /** Follows this broker's leadership of {@code __transaction_state} partitions (told at once of those led now). */
    public void startup() {
        replicaManager.addLeadershipListener(new LeadershipListener() {
            @Override
            public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {
                if (tp.topic().equals(TOPIC)) {
                    runtime.load(tp.partition(), leaderEpoch);
                }
            }

            @Override
            public void onResigning(TopicPartition tp, int leaderEpoch) {
                if (tp.topic().equals(TOPIC)) {
                    runtime.unload(tp.partition(), leaderEpoch);
                }
            }
        });
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

    /**
     * Runs an event on the shard of {@code partition}: NOT_COORDINATOR when this broker does not lead it,
     * COORDINATOR_LOAD_IN_PROGRESS while it loads (also between the metadata naming this broker the leader and the
     * leadership event that starts the load).
     */
    public <T> CompletableFuture<T> run(
            int partition, Function<TransactionCoordinatorShard, CompletableFuture<T>> event) {
        if (runtime.epoch(partition) < 0 && topic.leads(partition)) {
            return CompletableFuture.failedFuture(
                    new CoordinatorLoadInProgressException(TOPIC + "-" + partition + " is about to load."));
        }
        return runtime.run(partition, event);
    }

    /** Runs an event on every shard this broker has and collects the results. */
    public <T> CompletableFuture<List<T>> runOnAll(Function<TransactionCoordinatorShard, CompletableFuture<T>> event) {
        return runtime.runOnAll(event);
    }

    // ---------------------------------------------------------------- loading

    /** Replays {@code __transaction_state-partition} into a new shard whose coordinator epoch is the leader epoch. */
    private CoordinatorLoader.Loaded<TransactionCoordinatorShard> load(int partition, int leaderEpoch) {
        PartitionLog partitionLog = topic.leaderLog(partition);
        long endOffset = partitionLog.logEndOffset();
        TransactionCoordinatorShard shard = new TransactionCoordinatorShard(
                partition, leaderEpoch, settings.coordinator(), System::currentTimeMillis, this::nextProducerId);
        OffsetsPartitionIo.replay(partitionLog, endOffset, shard::replay);
        shard.onLoadComplete();
        return new CoordinatorLoader.Loaded<>(
                shard, CoordinatorTopic.committedUpTo(partitionLog, endOffset, thread, partition));
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

    // ---------------------------------------------------------------- markers

    /**
     * Runs on the shard's thread after every event, timer and load: the markers the shard asked for leave once the
     * records drained with them (the PREPARE_* state) are committed; when all of a transaction's are written, the
     * shard of the same epoch completes it. A shard unloaded in between drops them: its successor resumes them.
     */
    private void sendMarkersOnceCommitted(TransactionCoordinatorShard shard) {
        int partition = shard.partition();
        int epoch = shard.coordinatorEpoch();
        shard.drainMarkersAfterCommit()
                .ifPresent(committed -> committed.thenAccept(markers -> {
                    for (MarkerRequest m : markers) {
                        markerSender
                                .send(partition, m, () -> runtime.hasShard(partition, epoch))
                                .thenCompose(v -> runtime.run(partition, epoch, s -> {
                                    s.markersWritten(m);
                                    return CompletableFuture.completedFuture(null);
                                }))
                                .whenComplete((v, e) -> {
                                    if (e != null && !(TxnMarkerSender.unwrap(e) instanceof ApiException)) {
                                        log.error("Completing the transaction of {} failed", m.transactionalId(), e);
                                    }
                                });
                    }
                }));
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
        return topic.ensureExists();
    }

    /** The node coordinating {@code transactionalId}: the leader of its partition, or -1 when there is none. */
    @Override
    public int coordinatorNode(String transactionalId) {
        return topic.coordinatorNode(transactionalId);
    }

    @Override
    public void close() {
        runtime.close();
        thread.close();
    }
}
