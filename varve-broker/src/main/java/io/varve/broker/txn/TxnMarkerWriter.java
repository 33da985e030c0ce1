package io.varve.broker.txn;

import io.varve.broker.group.GroupCoordinatorRuntime;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.storage.records.TxnMarker;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Writes one transaction marker to a partition this broker leads: a control batch (attributes control +
 * transactional, the producer's id and epoch, one COMMIT or ABORT control record carrying the coordinator epoch)
 * appended as a coordinator append, so the storage checks it (producer epoch not older than the producer's:
 * INVALID_PRODUCER_EPOCH; coordinator epoch not older than its last marker's: TRANSACTION_COORDINATOR_FENCED), ends
 * the producer's transaction (moving the last stable offset) and indexes an ABORT. The future completes once the
 * marker is committed (below the high watermark), as Kafka writes markers with acks=all. Used by the transaction
 * coordinator for partitions it leads itself and by WriteTxnMarkers for the others' markers.
 */
public final class TxnMarkerWriter {
    /** What became of one marker. */
    public enum Outcome {
        WRITTEN,
        /** The partition no longer exists: nothing to mark (Kafka completes the transaction too). */
        PARTITION_GONE
    }

    /** Told of every marker committed to a {@code __consumer_offsets} partition (the group coordinator). */
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
     * Writes the marker to {@code tp}, which this broker must lead; fails with Kafka's errors
     * (NOT_LEADER_OR_FOLLOWER...) when it cannot be written or committed now: the caller retries.
     */
    public CompletableFuture<Outcome> write(
            TopicPartition tp, long producerId, short epoch, int coordinatorEpoch, boolean commit) {
        TopicInfo topic = cache.snapshot().topicsByName().get(tp.topic());
        PartitionInfo partition = topic == null ? null : topic.partitions().get(tp.partition());
        if (partition == null) {
            return CompletableFuture.completedFuture(Outcome.PARTITION_GONE);
        }
        ByteBuffer batch = new TxnMarker(commit, coordinatorEpoch).batch(producerId, epoch, System.currentTimeMillis());
        return replicaManager
                .appendAsCoordinator(tp, batch, partition.leaderEpoch())
                .thenApply(offset -> {
                    if (tp.topic().equals(GroupCoordinatorRuntime.TOPIC)) {
                        // The group coordinator's pending transactional offsets there commit or vanish with it.
                        offsetsMarkers.onTransactionCompleted(tp.partition(), producerId, commit);
                    }
                    return Outcome.WRITTEN;
                });
    }
}
