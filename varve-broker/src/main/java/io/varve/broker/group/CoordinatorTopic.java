package io.varve.broker.group;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.runtime.CoordinatorScheduler;
import io.varve.coordinator.runtime.Outbox;
import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.storage.PartitionLog;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.producer.ProducerStateEntry;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinator's internal topic ({@code __consumer_offsets}, {@code __transaction_state}): which partition
 * coordinates a key (Kafka's abs(hashCode) modulo the partition count), which node leads it, which partitions
 * this node leads, and creating the topic through the controller on first use, as Kafka does.
 */
public final class CoordinatorTopic {
    private static final Logger log = LoggerFactory.getLogger(CoordinatorTopic.class);
    /** How often, and how long at most, a loaded shard checks that the records it replayed are committed. */
    static final long COMMIT_POLL_MS = 10;

    static final long COMMIT_WAIT_MS = 30_000;

    private final String name;
    private final int nodeId;
    private final int defaultPartitions;
    private final short replicationFactor;
    private final String replicationFactorKey;
    private final int minInsyncReplicas;
    private final Map<String, String> configs;
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final ControllerCalls controller;
    private CompletableFuture<Void> creation;

    /**
     * {@code configs} are the topic-level configs it is created with (always compacted); {@code replicationFactorKey}
     * names the key {@code replicationFactor} comes from, for the log; {@code minInsyncReplicas} 0 leaves the
     * topic's {@code min.insync.replicas} to the broker default.
     */
    public CoordinatorTopic(
            String name,
            int nodeId,
            int defaultPartitions,
            short replicationFactor,
            String replicationFactorKey,
            int minInsyncReplicas,
            Map<String, String> configs,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller) {
        this.name = name;
        this.nodeId = nodeId;
        this.defaultPartitions = defaultPartitions;
        this.replicationFactor = replicationFactor;
        this.replicationFactorKey = replicationFactorKey;
        this.minInsyncReplicas = minInsyncReplicas;
        this.configs = configs;
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.controller = controller;
    }

    public String name() {
        return name;
    }

    /** The topic as the current metadata has it, or null before it is created. */
    public TopicInfo info() {
        return cache.snapshot().topicsByName().get(name);
    }

    public int numPartitions() {
        TopicInfo topic = info();
        return topic == null || topic.partitions().isEmpty()
                ? defaultPartitions
                : topic.partitions().size();
    }

    /** Kafka's mapping of a group or transactional id to its partition. */
    public int partitionFor(String key) {
        int h = key.hashCode();
        return Math.floorMod(h == Integer.MIN_VALUE ? 0 : Math.abs(h), numPartitions());
    }

    /** The node coordinating {@code key}: the leader of its partition, or -1 when there is none. */
    public int coordinatorNode(String key) {
        TopicInfo topic = info();
        if (topic == null) {
            return -1;
        }
        PartitionInfo p = topic.partitions().get(partitionFor(key));
        return p == null ? -1 : p.leader();
    }

    /** Whether the current metadata names this node the leader of {@code partition}. */
    public boolean leads(int partition) {
        TopicInfo topic = info();
        PartitionInfo p = topic == null ? null : topic.partitions().get(partition);
        return p != null && p.leader() == nodeId;
    }

    /** The local log of {@code partition}, which this node must lead; Kafka's errors otherwise. */
    public PartitionLog leaderLog(int partition) {
        return replicaManager.leaderLog(cache.snapshot(), new TopicPartition(name, partition));
    }

    /**
     * Completes once {@code partitionLog}'s high watermark reaches {@code endOffset}: a shard replayed up to there
     * answers nothing before (a new leader's log may end above its high watermark until its followers catch up).
     * Checked every {@link #COMMIT_POLL_MS} on the shard's thread; fails after {@link #COMMIT_WAIT_MS}.
     */
    public static CompletableFuture<Void> committedUpTo(
            PartitionLog partitionLog, long endOffset, CoordinatorScheduler scheduler, int partition) {
        if (partitionLog.highWatermark() >= endOffset) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> committed = new CompletableFuture<>();
        long deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(COMMIT_WAIT_MS);
        Runnable check = new Runnable() {
            @Override
            public void run() {
                if (partitionLog.highWatermark() >= endOffset) {
                    committed.complete(null);
                } else if (System.nanoTime() - deadlineNanos > 0) {
                    committed.completeExceptionally(new org.apache.kafka.common.errors.TimeoutException(
                            partitionLog.topicPartition() + "'s high watermark stayed below " + endOffset + " for "
                                    + COMMIT_WAIT_MS + " ms"));
                } else {
                    scheduler.schedule(partition, this, COMMIT_POLL_MS);
                }
            }
        };
        try {
            scheduler.schedule(partition, check, COMMIT_POLL_MS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            committed.completeExceptionally(e);
        }
        return committed;
    }

    /**
     * Appends a shard's writes to {@code partition} as leader at {@code leaderEpoch}, in order and in batches; the
     * future completes with the last offset once everything is committed (below the high watermark) and fails with
     * NOT_LEADER_OR_FOLLOWER when this node no longer leads the partition at that epoch. Transactional writes
     * (TxnOffsetCommit) become transactional batches of their producer whose sequences continue the producer's in
     * this partition (0 in a new epoch): the log checks them as a client's, and only this coordinator writes data of
     * the producer here, from the partition's one coordinator thread.
     */
    public CompletableFuture<Long> write(int partition, int leaderEpoch, List<Outbox.Write> writes) {
        TopicPartition tp = new TopicPartition(name, partition);
        long nowMs = System.currentTimeMillis();
        CompletableFuture<Long> last = CompletableFuture.completedFuture(-1L);
        for (Outbox.Write w : writes) {
            List<ByteBuffer> batches = w.isTransactional()
                    ? OffsetsPartitionIo.toBatches(
                            w.records(),
                            nowMs,
                            w.producerId(),
                            w.producerEpoch(),
                            nextSequence(tp, w.producerId(), w.producerEpoch()))
                    : OffsetsPartitionIo.toBatches(w.records(), nowMs);
            for (ByteBuffer batch : batches) {
                // The log commits in order: the last batch's commit is everyone's, a failure fails the ones after.
                last = replicaManager.appendAsCoordinator(tp, batch, leaderEpoch);
                if (last.isCompletedExceptionally()) {
                    return last;
                }
            }
        }
        return last;
    }

    private int nextSequence(TopicPartition tp, long producerId, short producerEpoch) {
        ProducerStateEntry entry = replicaManager
                .localLog(tp)
                .map(l -> l.producerStates().get(producerId))
                .orElse(null);
        return entry == null || entry.producerEpoch() != producerEpoch
                ? 0
                : entry.lastSequence()
                        .map(seq -> RecordBatchV2.incrementSequence(seq, 1))
                        .orElse(0);
    }

    /**
     * Completes once the topic exists, creating it through the controller if needed (one creation at a time). The
     * replication factor is the configured one capped to the brokers registered now (at least one), and a
     * {@code min.insync.replicas} given is capped to that replication factor.
     */
    public synchronized CompletableFuture<Void> ensureExists() {
        if (info() != null) {
            return CompletableFuture.completedFuture(null);
        }
        if (creation != null && !creation.isDone()) {
            return creation;
        }
        MetadataSnapshot snapshot = cache.snapshot();
        short rf = (short)
                Math.max(1, Math.min(replicationFactor, snapshot.brokers().size()));
        if (rf < replicationFactor) {
            log.warn(
                    "Creating {} with replication factor {}: {} asks for {}, but only {} brokers are registered now",
                    name,
                    rf,
                    replicationFactorKey,
                    replicationFactor,
                    snapshot.brokers().size());
        }
        Map<String, String> topicConfigs = new HashMap<>(configs);
        if (minInsyncReplicas > 0) {
            topicConfigs.put("min.insync.replicas", Integer.toString(Math.min(minInsyncReplicas, rf)));
        }
        CreateTopicRequest request = new CreateTopicRequest(name, defaultPartitions, rf, Map.of(), topicConfigs);
        creation = controller.createTopics(List.of(request), false).thenAccept(results -> {
            Errors error = results.get(0).error();
            if (error != Errors.NONE && error != Errors.TOPIC_ALREADY_EXISTS) {
                log.error(
                        "Creating {} failed: {} {}", name, error, results.get(0).errorMessage());
                throw new CoordinatorNotAvailableException("Creating " + name + " failed: " + error + ".");
            }
            if (error == Errors.NONE) {
                log.info("Created {} with {} partitions and replication factor {}", name, defaultPartitions, rf);
            }
        });
        return creation;
    }
}
