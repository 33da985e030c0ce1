package io.varve.broker.registry;

import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.Outbox;
import io.varve.registry.RegistryException;
import io.varve.registry.store.SchemaLog;
import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import io.varve.storage.records.BatchInfo;
import io.varve.storage.records.KeyValueBatches;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;

/**
 * The registry's log over partition 0 of the compacted {@code _schemas} topic (created on the first write): the node
 * leading the partition writes; every node holding a replica reads its own copy up to the high watermark, so the
 * registry only ever sees committed records. A write on another node gets 50003 (forwarding is not built yet).
 */
final class SchemasTopicLog implements SchemaLog {
    static final String TOPIC = "_schemas";
    private static final int READ_BYTES = 1024 * 1024;
    private static final long CREATE_TIMEOUT_MS = 30_000;

    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

    private final CoordinatorTopic topic;
    private final ReplicaManager replicaManager;

    SchemasTopicLog(CoordinatorTopic topic, ReplicaManager replicaManager) {
        this.topic = topic;
        this.replicaManager = replicaManager;
    }

    @Override
    public void append(List<Entry> entries) {
        List<CoordinatorRecord> records = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            records.add(new CoordinatorRecord(e.key(), e.value()));
        }
        awaitPartition();
        int leaderEpoch = leaderEpochIfLeading();
        if (leaderEpoch < 0) {
            throw RegistryException.notWriter(
                    "This broker does not lead " + TOPIC + "-0, which takes the registry's writes");
        }
        try {
            // Completes once the records are committed (below the high watermark): the registry applies only those.
            topic.write(0, leaderEpoch, List.of(new Outbox.Write(Outbox.NO_PRODUCER_ID, (short) -1, records)))
                    .get(CREATE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RegistryException.storeError("Interrupted while writing to " + TOPIC);
        } catch (TimeoutException e) {
            throw RegistryException.storeError(
                    "Writing to " + TOPIC + " was not committed within " + CREATE_TIMEOUT_MS + " ms");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof org.apache.kafka.common.errors.NotLeaderOrFollowerException) {
                throw RegistryException.notWriter("This broker no longer leads " + TOPIC + "-0: " + cause.getMessage());
            }
            throw RegistryException.storeError("Writing to " + TOPIC + " failed: " + cause.getMessage());
        } catch (ApiException e) {
            throw RegistryException.storeError("Writing to " + TOPIC + " failed: " + e.getMessage());
        }
    }

    /**
     * Creates the topic on the registry's first write (a broker whose registry is never used gets no topic), then
     * waits for this node's log of its partition.
     */
    private void awaitPartition() {
        if (topic.info() != null && leaderLogOrNull() != null) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CREATE_TIMEOUT_MS);
        try {
            topic.ensureExists().get(CREATE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            // The metadata names the new partition's leader a moment after the creation returns: poll for it.
            while (leaderLogOrNull() == null && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RegistryException.storeError("Interrupted while creating " + TOPIC);
        } catch (ExecutionException | TimeoutException e) {
            throw RegistryException.storeError("Creating " + TOPIC + " failed: " + e.getMessage());
        }
    }

    /** The leader epoch of partition 0 when the current metadata names this node its leader, else -1. */
    private int leaderEpochIfLeading() {
        if (!topic.leads(0)) {
            return -1;
        }
        var partition = topic.info().partitions().get(0);
        return partition == null ? -1 : partition.leaderEpoch();
    }

    private PartitionLog leaderLogOrNull() {
        try {
            return topic.info() == null ? null : topic.leaderLog(0);
        } catch (ApiException e) {
            return null;
        }
    }

    /**
     * True when this node can replay the topic: it does not exist yet, or this node holds a replica of it (the leader
     * or a follower; a broker without one serves no registry state).
     */
    boolean replayable() {
        return topic.info() == null || replicaManager.localLog(PARTITION).isPresent();
    }

    /** Reads this node's replica of the partition, the leader's or a follower's, up to its high watermark. */
    @Override
    public long readFrom(long fromOffset, Sink sink) {
        Optional<PartitionLog> local = topic.info() == null ? Optional.empty() : replicaManager.localLog(PARTITION);
        if (local.isEmpty()) {
            return fromOffset;
        }
        PartitionLog log = local.get();
        long end = log.highWatermark();
        long offset = Math.max(fromOffset, log.logStartOffset());
        while (offset < end) {
            LogReadResult read = log.read(offset, READ_BYTES, end, true);
            ByteBuffer bytes = read.records();
            if (!bytes.hasRemaining()) {
                break;
            }
            long next = KeyValueBatches.read(bytes, new KeyValueBatches.Sink() {
                @Override
                public void record(BatchInfo batch, byte[] key, byte[] value) {
                    sink.record(key, value);
                }

                @Override
                public void marker(BatchInfo batch, boolean commit) {}
            });
            if (next <= offset) {
                throw new IllegalStateException(TOPIC + ": replay made no progress at offset " + offset);
            }
            offset = next;
        }
        return Math.max(offset, fromOffset);
    }
}
