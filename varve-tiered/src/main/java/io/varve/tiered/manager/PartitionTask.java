package io.varve.tiered.manager;

import io.varve.storage.LogConfig;
import io.varve.storage.PartitionLog;
import io.varve.storage.RolledSegment;
import io.varve.tiered.metadata.RemoteLogMetadataStore;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.RemoteSegmentState;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote storage work of one partition, run again every task interval; never two runs at once (the manager
 * submits a run only when {@link #tryStart()} succeeds), so within a partition nothing is in flight when a run
 * starts. One run: finish what a crash or failure left half done (COPY_SEGMENT_STARTED / DELETE_SEGMENT_STARTED
 * segments: delete their objects); tell the log what remote storage holds ({@link #takeOver}); upload the
 * qualifying rolled segments in order; apply remote retention; update the upload lag. A partition whose log is gone (topic deleted) has all its remote segments deleted. A failed run backs
 * off exponentially; local data is untouched meanwhile (local retention only deletes confirmed uploads).
 */
final class PartitionTask {
    private static final Logger log = LoggerFactory.getLogger(PartitionTask.class);

    private final TopicIdPartition partition;
    private final RemoteLogManager.Context context;
    private final AtomicBoolean running = new AtomicBoolean();
    private int consecutiveFailures;
    private volatile long nextRunAtMs;
    private volatile UploadLag lag = UploadLag.NONE;
    /** True once a run found nothing left to do for a deleted partition: the manager drops the task. */
    private volatile boolean finished;
    /** In a cluster: the leader epoch whose first run synced the metadata and cleaned up (runs are serial). */
    private Integer preparedEpoch;

    PartitionTask(TopicIdPartition partition, RemoteLogManager.Context context) {
        this.partition = partition;
        this.context = context;
    }

    TopicIdPartition partition() {
        return partition;
    }

    UploadLag lag() {
        return lag;
    }

    boolean finished() {
        return finished;
    }

    /** Claims the task for one run when it is due and not running. */
    boolean tryStart(long nowMs) {
        return nowMs >= nextRunAtMs && running.compareAndSet(false, true);
    }

    /**
     * One run; {@code partitionLog} is null when the partition has no local log any more, {@code store} the
     * metadata store holding its segments.
     */
    void run(PartitionLog partitionLog, RemoteLogMetadataStore store) {
        try {
            Integer epoch = context.leaderEpoch(partition.topicPartition());
            if (context.clustered()
                    && partitionLog != null
                    && partitionLog.config().remoteStorageEnable()) {
                if (epoch == null) {
                    followerRun(partitionLog, store);
                    preparedEpoch = null;
                    succeeded();
                    return;
                }
                if (!epoch.equals(preparedEpoch)) {
                    // a new leader continues from the journal, where the previous one stopped
                    context.journal().removeStrays(partition, context.journal().sync(store, partition));
                    preparedEpoch = epoch;
                }
            } else if (context.clustered()) {
                context.journal().sync(store, partition);
                if (epoch == null && partitionLog != null) {
                    succeeded(); // a follower of a plain topic: remote.log.delete.on.disable is its leader's work
                    return;
                }
            }
            cleanUpUnfinished(store);
            if (partitionLog == null) {
                deleteAll(store, "its topic was deleted");
                finished = true;
            } else if (partitionLog.config().remoteStorageEnable()) {
                runTiered(partitionLog, store, epoch);
            } else if (partitionLog.config().remoteLogDeleteOnDisable()) {
                disable(partitionLog, store);
            }
            succeeded();
        } catch (RemoteStorageException | IOException | RuntimeException e) {
            failed(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (partitionLog != null) {
                lag = UploadPlanner.lag(partitionLog.rolledSegmentViews(), partitionLog.highestUploadedOffset());
            }
            running.set(false);
        }
    }

    /**
     * A follower uploads and deletes nothing: it learns from the journal what the leader has uploaded, so its local
     * retention may free exactly the local segments the remote tier holds.
     */
    private void followerRun(PartitionLog partitionLog, RemoteLogMetadataStore store)
            throws RemoteStorageException, IOException {
        context.journal().sync(store, partition);
        takeOver(partitionLog, store, partition);
    }

    private void runTiered(PartitionLog partitionLog, RemoteLogMetadataStore store, Integer epoch)
            throws RemoteStorageException, IOException, InterruptedException {
        long highestCopied = takeOver(partitionLog, store, partition);
        LogConfig config = partitionLog.config();
        java.util.function.BooleanSupplier stillLeader =
                () -> epoch.equals(context.leaderEpoch(partition.topicPartition()));
        if (!config.remoteLogCopyDisable()) {
            copySegments(
                    partitionLog,
                    store,
                    config,
                    Math.max(highestCopied, partitionLog.logStartOffset() - 1),
                    stillLeader);
        }
        if (stillLeader.getAsBoolean()) {
            expire(partitionLog, store, config);
        }
    }

    private void copySegments(
            PartitionLog partitionLog,
            RemoteLogMetadataStore store,
            LogConfig config,
            long alreadyCovered,
            java.util.function.BooleanSupplier stillLeader)
            throws RemoteStorageException, IOException, InterruptedException {
        // Below the last stable offset too: a segment with an open transaction's data is not final yet.
        long uploadLimit = Math.min(partitionLog.highWatermark(), partitionLog.lastStableOffset());
        long cleanedUpTo = context.cleanedUpToOffset(partitionLog);
        List<RolledSegment> toUpload = UploadPlanner.segmentsToUpload(
                partitionLog.rolledSegmentViews(),
                alreadyCovered,
                uploadLimit,
                cleanedUpTo,
                config,
                context.clockMs().getAsLong());
        for (RolledSegment segment : toUpload) {
            if (context.closing() || !stillLeader.getAsBoolean()) {
                return;
            }
            RemoteSegmentMetadata copied =
                    context.lifecycle().copy(store, partition, segment, partitionLog.leaderEpochEntries(), stillLeader);
            partitionLog.updateHighestUploadedOffset(copied.endOffset());
            context.stats().copied(segment.sizeBytes());
            log.info(
                    "{}: offloaded segment [{}, {}] ({} bytes) to remote storage as {}",
                    partition,
                    segment.baseOffset(),
                    segment.endOffset(),
                    segment.sizeBytes(),
                    copied.segmentId().id());
        }
    }

    private void expire(PartitionLog partitionLog, RemoteLogMetadataStore store, LogConfig config)
            throws RemoteStorageException, IOException {
        List<RemoteSegmentMetadata> copied = store.read(c -> c.copiedSegments(partition));
        if (copied.isEmpty()) {
            return;
        }
        long localOnlyBytes = 0;
        long highestCopied = partitionLog.highestUploadedOffset();
        for (RolledSegment segment : partitionLog.rolledSegmentViews()) {
            localOnlyBytes += segment.endOffset() > highestCopied ? segment.sizeBytes() : 0;
        }
        localOnlyBytes += activeSegmentBytes(partitionLog);
        RemoteRetention.Plan plan = RemoteRetention.plan(
                copied, partitionLog.logStartOffset(), config, context.clockMs().getAsLong(), localOnlyBytes);
        if (plan.isEmpty()) {
            return;
        }
        if (plan.newLogStartOffset() > partitionLog.logStartOffset()) {
            // the start moves (and is persisted) before any object goes, so no reader is sent to a deleted segment
            partitionLog.advanceLogStartOffset(plan.newLogStartOffset(), "remote retention");
        }
        for (RemoteRetention.Deletion deletion : plan.deletions()) {
            if (deletion.segment().endOffset() >= partitionLog.logStartOffset()) {
                break; // the start could not move past it (high watermark): keep it
            }
            context.lifecycle().delete(store, deletion.segment());
            context.stats().deleted();
            log.info(
                    "{}: deleted remote segment [{}, {}] {} by {}",
                    partition,
                    deletion.segment().startOffset(),
                    deletion.segment().endOffset(),
                    deletion.segment().segmentId().id(),
                    deletion.reason());
        }
    }

    private static long activeSegmentBytes(PartitionLog partitionLog) {
        long rolledBytes = 0;
        for (RolledSegment segment : partitionLog.rolledSegmentViews()) {
            rolledBytes += segment.sizeBytes();
        }
        return Math.max(0, partitionLog.sizeBytes() - rolledBytes);
    }

    /** remote.log.delete.on.disable: remote storage was turned off for the topic; its remote data goes. */
    private void disable(PartitionLog partitionLog, RemoteLogMetadataStore store)
            throws RemoteStorageException, IOException {
        if (store.read(c -> c.segments(partition)).isEmpty()) {
            return;
        }
        partitionLog.advanceLogStartOffset(partitionLog.localLogStartOffset(), "remote.log.delete.on.disable");
        deleteAll(store, "remote storage was disabled with remote.log.delete.on.disable");
        partitionLog.updateHighestUploadedOffset(-1);
    }

    private void deleteAll(RemoteLogMetadataStore store, String reason) throws RemoteStorageException, IOException {
        List<RemoteSegmentMetadata> all = store.read(c -> c.segments(partition));
        for (RemoteSegmentMetadata segment : all) {
            context.lifecycle().delete(store, segment);
            context.stats().deleted();
        }
        if (!all.isEmpty()) {
            log.info("{}: deleted its {} remote segments: {}", partition, all.size(), reason);
        }
    }

    /** Segments a crash or a failed run left half copied or half deleted: their objects go, then they are forgotten. */
    private void cleanUpUnfinished(RemoteLogMetadataStore store) throws RemoteStorageException, IOException {
        for (RemoteSegmentMetadata segment : store.read(c -> c.segments(partition))) {
            if (segment.state() == RemoteSegmentState.COPY_SEGMENT_STARTED
                    || segment.state() == RemoteSegmentState.DELETE_SEGMENT_STARTED) {
                context.lifecycle().delete(store, segment);
                log.info(
                        "{}: cleaned up remote segment [{}, {}] {} left {}",
                        partition,
                        segment.startOffset(),
                        segment.endOffset(),
                        segment.segmentId().id(),
                        segment.state());
            }
        }
    }

    /**
     * Tells the log what remote storage holds: its highest uploaded offset and (the first time only, see
     * {@code PartitionLog.restoreLogStartOffsetFromRemote}) its log start offset. Reads only the metadata store, so
     * the manager also does it for every tiered log when it starts, before the broker serves requests.
     *
     * @return the highest copied offset, or -1
     */
    static long takeOver(PartitionLog partitionLog, RemoteLogMetadataStore store, TopicIdPartition partition) {
        List<RemoteSegmentMetadata> copied = store.read(c -> c.copiedSegments(partition));
        long highestCopied = copied.stream()
                .mapToLong(RemoteSegmentMetadata::endOffset)
                .max()
                .orElse(-1);
        partitionLog.updateHighestUploadedOffset(highestCopied);
        partitionLog.restoreLogStartOffsetFromRemote(contiguousRemoteStart(copied, partitionLog.localLogStartOffset()));
        return highestCopied;
    }

    /**
     * Where the readable remote segments start that reach, without a gap, up to the first local offset; -1 when no
     * remote segment ends right below it.
     */
    static long contiguousRemoteStart(List<RemoteSegmentMetadata> copied, long localLogStartOffset) {
        long cursor = localLogStartOffset;
        for (int i = copied.size() - 1; i >= 0; i--) {
            RemoteSegmentMetadata segment = copied.get(i);
            if (segment.startOffset() >= cursor) {
                continue;
            }
            if (segment.endOffset() + 1 < cursor) {
                break;
            }
            cursor = segment.startOffset();
        }
        return cursor < localLogStartOffset ? cursor : -1;
    }

    private void succeeded() {
        if (consecutiveFailures > 0) {
            log.info("{}: remote storage work recovered after {} failed attempts", partition, consecutiveFailures);
        }
        consecutiveFailures = 0;
        nextRunAtMs = 0;
    }

    private void failed(Exception e) {
        consecutiveFailures++;
        context.stats().failed();
        long delayMs = context.backoff()
                .delayMs(consecutiveFailures, ThreadLocalRandom.current().nextDouble());
        nextRunAtMs = context.clockMs().getAsLong() + delayMs;
        if (consecutiveFailures == 1) {
            log.warn(
                    "{}: remote storage work failing, local data is kept; retrying with backoff: {}",
                    partition,
                    e.toString());
        } else {
            log.debug(
                    "{}: attempt {} failed, next in {} ms: {}", partition, consecutiveFailures, delayMs, e.toString());
        }
    }
}
