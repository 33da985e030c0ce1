package io.varve.broker.group;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.metadata.controller.CreateTopicRequest;
import io.varve.storage.PartitionLog;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.producer.ProducerStateEntry;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.NotCoordinatorException;
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

    private final String name;
    private final int nodeId;
    private final int defaultPartitions;
    private final short replicationFactor;
    private final Map<String, String> configs;
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final ControllerCalls controller;
    private CompletableFuture<Void> creation;

    /** {@code configs} are the topic-level configs it is created with (always compacted). */
    public CoordinatorTopic(
            String name,
            int nodeId,
            int defaultPartitions,
            short replicationFactor,
            Map<String, String> configs,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller) {
        this.name = name;
        this.nodeId = nodeId;
        this.defaultPartitions = defaultPartitions;
        this.replicationFactor = replicationFactor;
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

    /** The partitions of the topic this node leads; empty before the topic exists. */
    public List<Integer> ledPartitions() {
        TopicInfo topic = info();
        List<Integer> led = new ArrayList<>();
        if (topic != null) {
            for (PartitionInfo p : topic.partitions().values()) {
                if (p.leader() == nodeId) {
                    led.add(p.partition());
                }
            }
        }
        return led;
    }

    /**
     * Throws NOT_COORDINATOR unless this node leads {@code partition}. Without a topic there is no shard: as Kafka,
     * that is NOT_COORDINATOR too, and FindCoordinator creates the topic.
     */
    public void requireLeader(int partition) {
        TopicInfo topic = info();
        if (topic == null) {
            throw new NotCoordinatorException("The " + name + " topic does not exist yet.");
        }
        PartitionInfo p = topic.partitions().get(partition);
        if (p == null || p.leader() != nodeId) {
            throw new NotCoordinatorException("This broker does not lead " + name + "-" + partition + ".");
        }
    }

    /** The local log of {@code partition}, which this node must lead. */
    public PartitionLog leaderLog(int partition) {
        return replicaManager.leaderLog(cache.snapshot(), new TopicPartition(name, partition));
    }

    /** Appends a coordinator's records to {@code partition} as leader, in batches. */
    public void append(int partition, List<CoordinatorRecord> records) {
        MetadataSnapshot snapshot = cache.snapshot();
        PartitionLog partitionLog = replicaManager.leaderLog(snapshot, new TopicPartition(name, partition));
        int leaderEpoch =
                snapshot.topicsByName().get(name).partitions().get(partition).leaderEpoch();
        for (ByteBuffer batch : OffsetsPartitionIo.toBatches(records, System.currentTimeMillis())) {
            replicaManager.appendAsLeader(partitionLog, batch, leaderEpoch);
        }
    }

    /**
     * Appends records of a producer's transaction (TxnOffsetCommit) to {@code partition} as leader: transactional
     * batches of the producer id and epoch. The log checks their sequences as a client's, so they continue the
     * producer's sequence in this partition (0 in a new epoch); only this coordinator writes data of the producer
     * here, from the partition's one coordinator thread.
     */
    public void appendTransactional(
            int partition, long producerId, short producerEpoch, List<CoordinatorRecord> records) {
        MetadataSnapshot snapshot = cache.snapshot();
        PartitionLog partitionLog = replicaManager.leaderLog(snapshot, new TopicPartition(name, partition));
        int leaderEpoch =
                snapshot.topicsByName().get(name).partitions().get(partition).leaderEpoch();
        ProducerStateEntry entry = partitionLog.producerStates().get(producerId);
        int baseSequence = entry == null || entry.producerEpoch() != producerEpoch
                ? 0
                : entry.lastSequence()
                        .map(seq -> RecordBatchV2.incrementSequence(seq, 1))
                        .orElse(0);
        for (ByteBuffer batch : OffsetsPartitionIo.toBatches(
                records, System.currentTimeMillis(), producerId, producerEpoch, baseSequence)) {
            replicaManager.appendAsLeader(partitionLog, batch, leaderEpoch);
        }
    }

    /** The leader epoch of {@code partition}, which a coordinator uses as its epoch. */
    public int leaderEpoch(int partition) {
        return info().partitions().get(partition).leaderEpoch();
    }

    /**
     * Completes once the topic exists, creating it through the controller if needed (one creation at a time);
     * {@code afterCreation} runs once the creation request succeeded.
     */
    public synchronized CompletableFuture<Void> ensureExists(Runnable afterCreation) {
        if (info() != null) {
            return CompletableFuture.completedFuture(null);
        }
        if (creation != null && !creation.isDone()) {
            return creation;
        }
        CreateTopicRequest request =
                new CreateTopicRequest(name, defaultPartitions, replicationFactor, Map.of(), configs);
        creation = controller.createTopics(List.of(request), false).thenAccept(results -> {
            Errors error = results.get(0).error();
            if (error != Errors.NONE && error != Errors.TOPIC_ALREADY_EXISTS) {
                log.error(
                        "Creating {} failed: {} {}", name, error, results.get(0).errorMessage());
                throw new CoordinatorNotAvailableException("Creating " + name + " failed: " + error + ".");
            }
            if (error == Errors.NONE) {
                log.info(
                        "Created {} with {} partitions and replication factor {}",
                        name,
                        defaultPartitions,
                        replicationFactor);
            }
            afterCreation.run();
        });
        return creation;
    }
}
