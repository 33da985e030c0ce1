package io.varve.broker.share;

import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.group.OffsetsPartitionIo;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.share.SharePartition;
import io.varve.coordinator.share.ShareStateRecords;
import io.varve.storage.PartitionLog;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Share-partition state in the compacted internal topic {@code __share_group_state} ({@link ShareStateRecords} has
 * the layout): a state's partition is Kafka's hash of "group:topicId:partition" modulo the topic's partitions. On
 * first use of a state partition this node replays it into memory; every write appends the state's new record as
 * the partition's leader (acks=all, as coordinator writes are). The topic is created on first use. When another
 * node leads a state partition (a cluster where the share-partition leader is not the state partition's leader),
 * the state lives in this node's memory only, which is logged once: Varve has no Read/WriteShareGroupState RPCs yet.
 * Writes are not awaited by the acknowledgements that cause them: a crash may lose the last ones, whose records are
 * then delivered again (at least once still holds).
 */
public final class TopicShareStateStore implements ShareStateStore {
    public static final String TOPIC = "__share_group_state";
    private static final Logger log = LoggerFactory.getLogger(TopicShareStateStore.class);

    private final CoordinatorTopic topic;
    private final ReplicaManager replicaManager;
    private final int nodeId;
    private final Map<Integer, Map<SharePartitionKey, SharePartition.Snapshot>> loaded = new HashMap<>();
    private final Set<Integer> notDurable = new HashSet<>();

    public TopicShareStateStore(CoordinatorTopic topic, ReplicaManager replicaManager, int nodeId) {
        this.topic = topic;
        this.replicaManager = replicaManager;
        this.nodeId = nodeId;
    }

    private int partitionOf(SharePartitionKey key) {
        return topic.partitionFor(key.groupId() + ":" + key.topicId() + ":" + key.partition());
    }

    @Override
    public synchronized SharePartition.Snapshot read(SharePartitionKey key) {
        Map<SharePartitionKey, SharePartition.Snapshot> states = load(partitionOf(key));
        return states == null ? null : states.get(key);
    }

    @Override
    public synchronized void resigned(TopicPartition tp) {
        if (tp.topic().equals(TOPIC)) {
            loaded.remove(tp.partition());
            notDurable.remove(tp.partition());
        }
    }

    /** Every state partition this node leads is loaded first (those not ready yet are skipped). */
    @Override
    public synchronized List<SharePartitionKey> keys(String groupId) {
        List<SharePartitionKey> out = new java.util.ArrayList<>();
        for (int p = 0; p < topic.numPartitions(); p++) {
            try {
                Map<SharePartitionKey, SharePartition.Snapshot> states = load(p);
                if (states != null) {
                    states.keySet().stream()
                            .filter(k -> k.groupId().equals(groupId))
                            .forEach(out::add);
                }
            } catch (CoordinatorLoadInProgressException e) {
                // not ready: the keys of that partition are missing from this answer
            }
        }
        return out;
    }

    @Override
    public synchronized void write(SharePartitionKey key, SharePartition.Snapshot state) {
        int partition = partitionOf(key);
        Map<SharePartitionKey, SharePartition.Snapshot> states = load(partition);
        if (states == null) {
            return;
        }
        if (state == null) {
            states.remove(key);
        } else {
            states.put(key, state);
        }
        CoordinatorRecord record = new CoordinatorRecord(
                ShareStateRecords.key(key.groupId(), key.topicId(), key.partition()),
                state == null ? null : ShareStateRecords.value(state));
        int epoch = replicaManager
                .partition(new TopicPartition(TOPIC, partition))
                .map(p -> p.leaderEpochIfLeader())
                .orElse(-1);
        topic.write(partition, epoch, List.of(new Outbox.Write(Outbox.NO_PRODUCER_ID, (short) -1, List.of(record))))
                .whenComplete((offset, e) -> {
                    if (e != null) {
                        log.warn(
                                "Writing the share state of {} to {}-{} failed: {}",
                                key,
                                TOPIC,
                                partition,
                                e.toString());
                    }
                });
    }

    /**
     * The states of {@code partition}, replayed on first use; null when another node leads it (memory only). Throws
     * COORDINATOR_LOAD_IN_PROGRESS while the topic is being created or the partition has no leader yet.
     */
    private Map<SharePartitionKey, SharePartition.Snapshot> load(int partition) {
        Map<SharePartitionKey, SharePartition.Snapshot> states = loaded.get(partition);
        if (states != null) {
            return states;
        }
        MetadataSnapshot.TopicInfo info = topic.info();
        if (info == null) {
            topic.ensureExists();
            throw new CoordinatorLoadInProgressException(TOPIC + " is being created.");
        }
        MetadataSnapshot.PartitionInfo p = info.partitions().get(partition);
        if (p == null || p.leader() < 0) {
            throw new CoordinatorLoadInProgressException(TOPIC + "-" + partition + " has no leader yet.");
        }
        if (p.leader() != nodeId) {
            if (notDurable.add(partition)) {
                log.warn(
                        "{}-{} is led by node {}: share state of partitions led here that maps to it is kept in"
                                + " memory only",
                        TOPIC,
                        partition,
                        p.leader());
            }
            return null;
        }
        PartitionLog partitionLog;
        try {
            partitionLog = topic.leaderLog(partition);
        } catch (RuntimeException e) {
            throw new CoordinatorLoadInProgressException(TOPIC + "-" + partition + " is not ready here yet.");
        }
        Map<SharePartitionKey, SharePartition.Snapshot> replayed = new HashMap<>();
        long records = OffsetsPartitionIo.replay(partitionLog, partitionLog.logEndOffset(), r -> {
            ShareStateRecords.Key k = ShareStateRecords.decodeKey(r.key());
            SharePartitionKey key = new SharePartitionKey(k.groupId(), k.topicId(), k.partition());
            if (r.isTombstone()) {
                replayed.remove(key);
            } else {
                replayed.put(key, ShareStateRecords.decodeValue(r.value()));
            }
        });
        log.info(
                "Loaded {} share-partition states from {} records of {}-{}",
                replayed.size(),
                records,
                TOPIC,
                partition);
        loaded.put(partition, replayed);
        return replayed;
    }
}
