package io.varve.tiered.manager;

import io.varve.storage.RolledSegment;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.tiered.metadata.RemoteLogMetadataEvent;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentStateChanged;
import io.varve.tiered.metadata.RemoteLogMetadataStore;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.RemoteSegmentState;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import io.varve.tiered.spi.SegmentFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * Moves one remote segment through its lifecycle with the metadata written durably before each step, so a crash
 * anywhere leaves a state that start-up cleanup resolves ({@code RemoteLogMetadataCache.segmentsToCleanUp()}):
 * <ul>
 *   <li>copy: COPY_SEGMENT_STARTED, upload the objects (throttled), COPY_SEGMENT_FINISHED. A failed upload is
 *       abandoned at once (DELETE_SEGMENT_STARTED, delete its objects, DELETE_SEGMENT_FINISHED); the next attempt
 *       uses a fresh segment id.</li>
 *   <li>delete: DELETE_SEGMENT_STARTED, delete the objects, DELETE_SEGMENT_FINISHED.</li>
 * </ul>
 */
final class RemoteSegmentLifecycle {

    private final RemoteStorage storage;
    private final CopyThrottle throttle;
    private final FaultPoints faults;
    private final LongSupplier clockMs;
    /** Uploaded in place of a producer snapshot that does not exist (a segment rolled before the log was tiered). */
    private final Path emptySnapshot;
    /** In a cluster, where every event is journaled before the store records it; null on a lone node. */
    private final RemoteMetadataJournal journal;

    RemoteSegmentLifecycle(
            RemoteStorage storage,
            CopyThrottle throttle,
            FaultPoints faults,
            LongSupplier clockMs,
            Path emptySnapshot,
            RemoteMetadataJournal journal) {
        this.journal = journal;
        this.storage = storage;
        this.throttle = throttle;
        this.faults = faults;
        this.clockMs = clockMs;
        this.emptySnapshot = emptySnapshot;
    }

    /** Uploads {@code segment} with its indexes, producer snapshot and leader epochs; returns the finished metadata. */
    RemoteSegmentMetadata copy(
            RemoteLogMetadataStore store,
            TopicIdPartition partition,
            RolledSegment segment,
            List<EpochEntry> leaderEpochs)
            throws RemoteStorageException, IOException, InterruptedException {
        return copy(store, partition, segment, leaderEpochs, () -> true);
    }

    /**
     * {@link #copy(RemoteLogMetadataStore, TopicIdPartition, RolledSegment, List)}, kept only while
     * {@code stillLeader} holds when the objects are written: a leader that lost the partition during the upload
     * abandons it rather than finishing a copy its successor may already have made.
     */
    RemoteSegmentMetadata copy(
            RemoteLogMetadataStore store,
            TopicIdPartition partition,
            RolledSegment segment,
            List<EpochEntry> leaderEpochs,
            java.util.function.BooleanSupplier stillLeader)
            throws RemoteStorageException, IOException, InterruptedException {
        List<EpochEntry> epochsUpToEnd = entriesUpTo(leaderEpochs, segment.endOffset());
        RemoteSegmentMetadata fresh = RemoteSegmentMetadata.copyStarted(
                RemoteSegmentId.generate(partition),
                segment.baseOffset(),
                segment.endOffset(),
                segment.maxTimestampMs(),
                segmentEpochs(epochsUpToEnd, segment.baseOffset()),
                segment.sizeBytes(),
                clockMs.getAsLong());
        RemoteSegmentMetadata started = record(store, fresh, new SegmentAdded(fresh));
        Path snapshot = Files.exists(segment.producerSnapshotFile()) ? segment.producerSnapshotFile() : emptySnapshot;
        SegmentFiles files = new SegmentFiles(
                segment.logFile(),
                segment.offsetIndexFile(),
                segment.timeIndexFile(),
                snapshot,
                ByteBuffer.wrap(LeaderEpochCheckpointFile.encode(epochsUpToEnd).getBytes(StandardCharsets.UTF_8)),
                segment.txnIndexFile());
        try {
            throttle.acquire(uploadBytes(segment));
            Object fileBefore = unchangedFile(segment, null);
            storage.copySegment(started, files);
            unchangedFile(segment, fileBefore);
            if (!stillLeader.getAsBoolean()) {
                throw new RemoteStorageException(
                        "no longer the leader of " + partition + "; the upload of " + started.segmentId()
                                + " is abandoned",
                        false);
            }
        } catch (RemoteStorageException | RuntimeException | InterruptedException e) {
            abandon(store, started, e);
            throw e;
        }
        faults.reached(RemoteLogManagerConfig.TestPause.AFTER_COPY, started.segmentId());
        return record(
                store,
                started,
                new SegmentStateChanged(
                        started.segmentId(), RemoteSegmentState.COPY_SEGMENT_FINISHED, clockMs.getAsLong()));
    }

    /**
     * The segment's files are read by name, and the log cleaner may swap a compacted segment for a cleaned one of the
     * same base offset at any time: an upload is kept only if the .log is the same file, of the size the view gave,
     * before and after the copy (else it is abandoned and retried with the new layout). Returns the file's identity.
     */
    private static Object unchangedFile(RolledSegment segment, Object expectedKey) throws RemoteStorageException {
        try {
            java.nio.file.attribute.BasicFileAttributes attributes =
                    Files.readAttributes(segment.logFile(), java.nio.file.attribute.BasicFileAttributes.class);
            Object key = attributes.fileKey();
            if (attributes.size() != segment.sizeBytes() || (expectedKey != null && !expectedKey.equals(key))) {
                throw new RemoteStorageException(
                        segment.logFile() + " changed while it was being uploaded (compacted meanwhile); retrying",
                        null,
                        true);
            }
            return key;
        } catch (java.io.IOException e) {
            throw new RemoteStorageException(
                    segment.logFile() + " changed while it was being uploaded (" + e + "); retrying", e, true);
        }
    }

    private void abandon(RemoteLogMetadataStore store, RemoteSegmentMetadata started, Exception cause) {
        try {
            delete(store, started, false);
        } catch (RemoteStorageException | IOException | RuntimeException e) {
            cause.addSuppressed(e); // stays DELETE_SEGMENT_STARTED or COPY_SEGMENT_STARTED: cleaned up later
        }
    }

    /** Deletes every object of the segment; idempotent, so a crash in between only repeats it. */
    void delete(RemoteLogMetadataStore store, RemoteSegmentMetadata segment)
            throws RemoteStorageException, IOException {
        delete(store, segment, segment.state() == RemoteSegmentState.COPY_SEGMENT_FINISHED);
    }

    /** {@code pausable}: the test pause applies (deletions of copied segments, not clean-ups of failed copies). */
    private void delete(RemoteLogMetadataStore store, RemoteSegmentMetadata segment, boolean pausable)
            throws RemoteStorageException, IOException {
        if (segment.state() != RemoteSegmentState.DELETE_SEGMENT_STARTED) {
            record(
                    store,
                    segment,
                    new SegmentStateChanged(
                            segment.segmentId(), RemoteSegmentState.DELETE_SEGMENT_STARTED, clockMs.getAsLong()));
        }
        if (pausable) {
            faults.reached(RemoteLogManagerConfig.TestPause.AFTER_DELETE_STARTED, segment.segmentId());
        }
        storage.deleteSegment(segment);
        record(
                store,
                segment,
                new SegmentStateChanged(
                        segment.segmentId(), RemoteSegmentState.DELETE_SEGMENT_FINISHED, clockMs.getAsLong()));
    }

    /** Journals the event (in a cluster: the remote tier is the truth), then records it in the local store. */
    private RemoteSegmentMetadata record(
            RemoteLogMetadataStore store, RemoteSegmentMetadata segment, RemoteLogMetadataEvent event)
            throws RemoteStorageException, IOException {
        if (journal != null) {
            journal.publish(segment, event);
        }
        return store.append(event);
    }

    private static long uploadBytes(RolledSegment segment) throws IOException {
        return segment.sizeBytes() + Files.size(segment.offsetIndexFile()) + Files.size(segment.timeIndexFile());
    }

    /** The log's epoch entries that start at or below {@code endOffset}: the checkpoint as of the segment's end. */
    static List<EpochEntry> entriesUpTo(List<EpochEntry> entries, long endOffset) {
        List<EpochEntry> result = new ArrayList<>();
        for (EpochEntry entry : entries) {
            if (entry.startOffset() <= endOffset) {
                result.add(entry);
            }
        }
        return result;
    }

    /**
     * Epoch → first offset inside a segment starting at {@code baseOffset}, from the entries up to its end: the
     * epoch in force at the base starts at the base. Records written before any epoch was recorded count as the
     * first known epoch (epoch 0 when there is none).
     */
    static NavigableMap<Integer, Long> segmentEpochs(List<EpochEntry> entriesUpToEnd, long baseOffset) {
        NavigableMap<Integer, Long> epochs = new TreeMap<>();
        Optional<EpochEntry> inForce = Optional.empty();
        for (EpochEntry entry : entriesUpToEnd) {
            if (entry.startOffset() <= baseOffset) {
                inForce = Optional.of(entry);
            } else {
                epochs.put(entry.epoch(), entry.startOffset());
            }
        }
        if (inForce.isPresent()) {
            epochs.put(inForce.get().epoch(), baseOffset);
        } else if (epochs.isEmpty()) {
            epochs.put(0, baseOffset);
        } else {
            epochs.put(epochs.firstKey(), baseOffset);
        }
        return epochs;
    }
}
