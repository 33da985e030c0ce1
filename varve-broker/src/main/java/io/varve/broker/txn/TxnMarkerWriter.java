package io.varve.broker.txn;

import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.storage.AppendOrigin;
import io.varve.storage.PartitionLog;
import io.varve.storage.records.TxnMarker;
import java.nio.ByteBuffer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one transaction marker: a control batch (attributes control + transactional, the producer's id and epoch,
 * one COMMIT or ABORT control record carrying the coordinator epoch) appended to the partition's leader log.
 * Used by the coordinator for its own transactions and by WriteTxnMarkers.
 */
public final class TxnMarkerWriter {
    private static final Logger log = LoggerFactory.getLogger(TxnMarkerWriter.class);

    /** What became of one marker. */
    public enum Outcome {
        WRITTEN,
        /** The partition no longer exists: nothing to mark (Kafka completes the transaction too). */
        PARTITION_GONE
    }

    /** Told of every marker written to a {@code __consumer_offsets} partition (the group coordinator). */
    public interface OffsetsMarkerListener {
        void onTransactionCompleted(int partition, long producerId, boolean commit);
    }

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final OffsetsMarkerListener offsetsMarkers;

    public TxnMarkerWriter(MetadataCache cache, ReplicaManager replicaManager, OffsetsMarkerListener offsetsMarkers) {
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.offsetsMarkers = offsetsMarkers;
    }

    /**
     * Writes the marker to {@code tp}'s leader log. Throws Kafka's errors (NOT_LEADER_OR_FOLLOWER...) when this broker
     * cannot write it now; the caller retries.
     */
    public Outcome write(TopicPartition tp, long producerId, short epoch, int coordinatorEpoch, boolean commit) {
        MetadataSnapshot snapshot = cache.snapshot();
        TopicInfo topic = snapshot.topicsByName().get(tp.topic());
        PartitionInfo partition = topic == null ? null : topic.partitions().get(tp.partition());
        if (partition == null) {
            return Outcome.PARTITION_GONE;
        }
        PartitionLog partitionLog;
        try {
            partitionLog = replicaManager.leaderLog(snapshot, tp);
        } catch (UnknownTopicOrPartitionException e) {
            return Outcome.PARTITION_GONE;
        }
        ByteBuffer batch = new TxnMarker(commit, coordinatorEpoch).batch(producerId, epoch, System.currentTimeMillis());
        Outcome outcome = appendControlBatch(partitionLog, batch, partition.leaderEpoch());
        if (tp.topic().equals(GroupCoordinatorRuntime.TOPIC)) {
            // The group coordinator's pending transactional offsets there commit or vanish with the marker.
            offsetsMarkers.onTransactionCompleted(tp.partition(), producerId, commit);
        }
        return outcome;
    }

    /**
     * Appends a coordinator-built control batch as a leader append with {@link AppendOrigin#COORDINATOR}: the
     * storage checks the marker (producer epoch not older than the producer's: INVALID_PRODUCER_EPOCH; coordinator
     * epoch not older than its last marker's: TRANSACTION_COORDINATOR_FENCED), ends the producer's transaction
     * (moving the last stable offset) and indexes an ABORT. Kafka's errors are thrown to the caller.
     */
    Outcome appendControlBatch(PartitionLog partitionLog, ByteBuffer batch, int leaderEpoch) {
        replicaManager.appendAsLeader(partitionLog, batch, leaderEpoch, AppendOrigin.COORDINATOR);
        return Outcome.WRITTEN;
    }
}
