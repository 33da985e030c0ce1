package io.varve.metadata;

import io.varve.metadata.image.MetadataDelta;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.image.MetadataImageDiff;
import io.varve.metadata.record.MetadataRecord;
import io.varve.metadata.record.MetadataRecordSerde;
import io.varve.metadata.snapshot.MetadataSnapshotFormat;
import io.varve.metadata.snapshot.SnapshotGenerator;
import io.varve.raft.RaftListener;
import io.varve.raft.RaftRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns committed Raft records into metadata images: decodes each record, replays it into a
 * {@link MetadataDelta}, and publishes the resulting image to every {@link MetadataPublisher} in
 * installation order, then makes it the current {@link #image()}.
 *
 * <p>A record that cannot be decoded or applied is fatal (thrown to the Raft node, which stops):
 * an image must never reflect half a log. A failing publisher is logged and skipped: the image
 * itself stays correct and the other publishers still run.
 */
public final class MetadataLoader implements RaftListener {

    private static final Logger LOG = LoggerFactory.getLogger(MetadataLoader.class);

    private final List<MetadataPublisher> publishers = new ArrayList<>();
    private SnapshotGenerator snapshots;
    private volatile long snapshotsLoaded;
    private volatile MetadataImage image = MetadataImage.EMPTY;
    private volatile int leaderId = -1;
    private volatile int leaderEpoch;

    /** The latest published image. Never null; {@link MetadataImage#EMPTY} before the first commit. */
    public MetadataImage image() {
        return image;
    }

    /** The leader of the metadata quorum, or -1 if unknown. */
    public int leaderId() {
        return leaderId;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    /**
     * Adds a publisher. If images were already published, it first receives one delta that builds
     * the current image from the empty one, so every publisher sees the same history in effect.
     */
    public synchronized void installPublisher(MetadataPublisher publisher) {
        Objects.requireNonNull(publisher, "publisher");
        MetadataImage current = image;
        if (!current.isEmpty()) {
            MetadataDelta catchUp = new MetadataDelta(MetadataImage.EMPTY);
            current.toRecords().forEach(catchUp::replay);
            publish(publisher, catchUp, catchUp.apply(current.offset()));
        }
        publishers.add(publisher);
    }

    /**
     * Hands every image this loader publishes (with the bytes of the records behind it) and every snapshot it loads
     * to {@code generator}, which decides when to write a snapshot. Before the Raft log starts.
     */
    public synchronized void attachSnapshotGenerator(SnapshotGenerator generator) {
        this.snapshots = Objects.requireNonNull(generator, "generator");
    }

    /** How many snapshots this loader loaded (at start or from the leader). */
    public long snapshotsLoaded() {
        return snapshotsLoaded;
    }

    @Override
    public synchronized void handleCommit(List<RaftRecord> records) {
        if (records.isEmpty()) {
            return;
        }
        MetadataImage current = image;
        MetadataDelta delta = new MetadataDelta(current);
        long lastOffset = current.offset();
        long recordBytes = 0;
        for (RaftRecord raftRecord : records) {
            recordBytes += raftRecord.payload().length;
            if (raftRecord.offset() <= lastOffset) {
                throw new IllegalStateException("record offset " + raftRecord.offset() + " is not after " + lastOffset);
            }
            MetadataRecord record = MetadataRecordSerde.deserialize(raftRecord.payload());
            try {
                delta.replay(record);
            } catch (RuntimeException e) {
                throw new IllegalStateException("cannot apply " + record + " at offset " + raftRecord.offset(), e);
            }
            lastOffset = raftRecord.offset();
        }
        MetadataImage next = delta.apply(lastOffset);
        for (MetadataPublisher publisher : publishers) {
            publish(publisher, delta, next);
        }
        image = next;
        if (snapshots != null) {
            snapshots.committed(next, recordBytes);
        }
    }

    /** Refuses a snapshot whose checksum or header is bad before the Raft log stores it or resets to it. */
    @Override
    public void verifySnapshot(long endOffset, byte[] snapshot) {
        MetadataSnapshotFormat.verify(snapshot, endOffset - 1);
    }

    /**
     * Replaces the image with a snapshot's. Publishers get the whole new image with the delta from the image they
     * had ({@link MetadataImageDiff}), so what the snapshot lacks (a topic deleted while this replica was away) is
     * deleted for them too. A snapshot that fails its checksum or does not decode is never applied: this throws,
     * and the Raft runtime stops.
     */
    @Override
    public synchronized void handleSnapshot(long endOffset, byte[] snapshot) {
        long startNanos = System.nanoTime();
        MetadataImage current = image;
        if (endOffset - 1 < current.offset()) {
            throw new IllegalStateException(
                    "snapshot ending at " + endOffset + " is older than the image at offset " + current.offset());
        }
        MetadataSnapshotFormat.Loaded loaded = MetadataSnapshotFormat.read(snapshot, endOffset - 1);
        MetadataImage next = loaded.image();
        MetadataDelta delta = current.isEmpty() ? loaded.deltaFromEmpty() : MetadataImageDiff.between(current, next);
        for (MetadataPublisher publisher : publishers) {
            publish(publisher, delta, next);
        }
        image = next;
        snapshotsLoaded++;
        if (snapshots != null) {
            snapshots.loaded(next);
        }
        LOG.info(
                "Loaded the metadata snapshot ending at offset {} ({} bytes, {} records: {} topics, {} partitions,"
                        + " {} brokers) in {} ms",
                endOffset,
                snapshot.length,
                loaded.records(),
                next.topics().topicsById().size(),
                next.topics().totalPartitions(),
                next.cluster().brokers().size(),
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    private static void publish(MetadataPublisher publisher, MetadataDelta delta, MetadataImage next) {
        try {
            publisher.onMetadataUpdate(delta, next);
        } catch (RuntimeException e) {
            LOG.error("Metadata publisher {} failed on the image at offset {}", publisher.name(), next.offset(), e);
        }
    }

    @Override
    public void handleLeaderChange(int newLeaderId, int epoch) {
        leaderEpoch = epoch;
        leaderId = newLeaderId;
        LOG.info("Metadata quorum leader is now {} in epoch {}", newLeaderId, epoch);
    }
}
