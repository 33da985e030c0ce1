package io.varve.broker.registry;

import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.Outbox;
import io.varve.registry.RegistryException;
import io.varve.registry.state.RegistryRecords;
import io.varve.registry.state.RegistryWriter;
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
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's log over partition 0 of the compacted {@code _schemas} topic (created on the first write): the node
 * leading the partition writes; every node holding a replica reads its own copy up to the high watermark, so the
 * registry only ever sees committed records. A node that becomes the leader first writes and commits its claim
 * ({@code WRITER}: its id, the leader epoch, its listener's URL) before any write of its own: the replay after it then
 * holds every record the previous leader committed (a new leader's high watermark may lag its log until it commits
 * in its own epoch), so no id is given twice, and other nodes learn where to forward writes.
 */
final class SchemasTopicLog implements SchemaLog {
    private static final Logger log = LoggerFactory.getLogger(SchemasTopicLog.class);
    static final String TOPIC = "_schemas";
    private static final int READ_BYTES = 1024 * 1024;
    private static final long CREATE_TIMEOUT_MS = 30_000;

    private static final TopicPartition PARTITION = new TopicPartition(TOPIC, 0);

    private final CoordinatorTopic topic;
    private final ReplicaManager replicaManager;
    private final int nodeId;
    private final Supplier<String> url;
    /** The leader epoch this node's claim was committed in; -1 before its first. Written under the registry's lock. */
    private volatile int claimedEpoch = -1;

    SchemasTopicLog(CoordinatorTopic topic, ReplicaManager replicaManager, int nodeId, Supplier<String> url) {
        this.topic = topic;
        this.replicaManager = replicaManager;
        this.nodeId = nodeId;
        this.url = url;
    }

    @Override
    public void claimWriter() {
        awaitLeader();
        int leaderEpoch = leaderEpochIfLeading();
        if (leaderEpoch < 0) {
            throw RegistryException.notWriter(
                    "This broker does not lead " + TOPIC + "-0, which takes the registry's writes");
        }
        if (leaderEpoch == claimedEpoch) {
            return;
        }
        awaitPartition();
        RegistryWriter writer = new RegistryWriter(nodeId, leaderEpoch, url.get());
        write(List.of(RegistryRecords.writer(writer)), leaderEpoch);
        claimedEpoch = leaderEpoch;
        log.info(
                "This node is now the schema registry's writer (leader epoch {} of {}-0), at {}",
                leaderEpoch,
                TOPIC,
                writer.url());
    }

    /** Whether the current metadata names this node the leader of the partition (false before it exists). */
    boolean leads() {
        return topic.info() != null && topic.leads(0);
    }

    /** The leader of the partition as the current metadata has it, or -1 (none, or no topic yet). */
    int leader() {
        TopicInfo info = topic.info();
        PartitionInfo p = info == null ? null : info.partitions().get(0);
        return p == null ? -1 : p.leader();
    }

    /** Creates the topic if it does not exist and waits until the metadata names its partition's leader. */
    int awaitLeader() {
        if (leader() >= 0) {
            return leader();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CREATE_TIMEOUT_MS);
        try {
            topic.ensureExists().get(CREATE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            // The metadata names the new partition's leader a moment after the creation returns: poll for it.
            while (leader() < 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RegistryException.storeError("Interrupted while creating " + TOPIC);
        } catch (ExecutionException | TimeoutException e) {
            throw RegistryException.storeError("Creating " + TOPIC + " failed: " + e.getMessage());
        }
        int leader = leader();
        if (leader < 0) {
            throw RegistryException.notWriter(TOPIC + "-0 has no leader, so the registry takes no writes now");
        }
        return leader;
    }

    @Override
    public void append(List<Entry> entries) {
        int leaderEpoch = leaderEpochIfLeading();
        if (leaderEpoch < 0 || leaderEpoch != claimedEpoch) {
            throw RegistryException.notWriter(
                    "This broker does not lead " + TOPIC + "-0, which takes the registry's writes");
        }
        write(entries, leaderEpoch);
    }

    private void write(List<Entry> entries, int leaderEpoch) {
        List<CoordinatorRecord> records = new ArrayList<>(entries.size());
        for (Entry e : entries) {
            records.add(new CoordinatorRecord(e.key(), e.value()));
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

    /** Waits for this node's leader log of the partition (it opens a moment after the metadata names the leader). */
    private void awaitPartition() {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CREATE_TIMEOUT_MS);
        try {
            while (leaderLogOrNull() == null && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw RegistryException.storeError("Interrupted while opening " + TOPIC + "-0");
        }
        if (leaderLogOrNull() == null) {
            throw RegistryException.notWriter("This broker's log of " + TOPIC + "-0 did not open as its leader");
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
        PartitionLog partitionLog = local.get();
        long end = partitionLog.highWatermark();
        long offset = Math.max(fromOffset, partitionLog.logStartOffset());
        while (offset < end) {
            LogReadResult read = partitionLog.read(offset, READ_BYTES, end, true);
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
