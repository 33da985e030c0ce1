package io.varve.broker.txn;

import java.util.concurrent.atomic.AtomicBoolean;

import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.storage.PartitionLog;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
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
        PARTITION_GONE,
        /** The storage refused control batches: see {@link #appendControlBatch}. */
        REFUSED_BY_STORAGE
    }

    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final AtomicBoolean refusalLogged = new AtomicBoolean();

    public TxnMarkerWriter(MetadataCache cache, ReplicaManager replicaManager) {
        this.cache = cache;
        this.replicaManager = replicaManager;
    }

    /** The control batch of a marker, exactly as Kafka writes it. */
    static MemoryRecords markerBatch(long producerId, short epoch, int coordinatorEpoch, boolean commit, long nowMs) {
        EndTransactionMarker marker = new EndTransactionMarker(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT,
                coordinatorEpoch);
        return MemoryRecords.withEndTransactionMarker(nowMs, producerId, epoch, marker);
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
        MemoryRecords batch = markerBatch(producerId, epoch, coordinatorEpoch, commit, System.currentTimeMillis());
        return appendControlBatch(partitionLog, batch, partition.leaderEpoch());
    }

    /**
     * THE SEAM FOR THE STORAGE SIDE (issue 6, read side). Appends a coordinator-built control batch as a leader
     * append. Today varve-storage's {@code ProduceBatchValidator} refuses every control batch ("clients may not
     * write them"), so the marker is dropped here with one warning and the transaction still completes. Once the
     * storage offers an append path that accepts control batches from the coordinator (and updates producer state,
     * the last stable offset and the aborted-transaction index), call it here and delete the catch.
     */
    Outcome appendControlBatch(PartitionLog partitionLog, MemoryRecords batch, int leaderEpoch) {
        try {
            replicaManager.appendAsLeader(partitionLog, batch.buffer(), leaderEpoch);
            return Outcome.WRITTEN;
        } catch (InvalidRecordException e) {
            // TODO(storage, issue 6): remove once control batches can be appended.
            if (e.getMessage() != null && e.getMessage().contains("control batch")) {
                if (refusalLogged.compareAndSet(false, true)) {
                    log.warn("The storage refuses control batches: transaction markers are not written to the "
                            + "partition logs yet ({}: {})", partitionLog.topicPartition(), e.getMessage());
                }
                return Outcome.REFUSED_BY_STORAGE;
            }
            throw e;
        }
    }
}
