package io.varve.storage;

import io.varve.storage.batch.OffsetOverlapException;
import io.varve.storage.progress.ProgressReporter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;

/**
 * One replica move in progress ({@link ReplicaDirMover}): the current log, the destination, the future log and how it
 * follows the current one (copied a chunk at a time, truncated when the current log is, started again when retention
 * passes the copy). The future log and its files are the copier's; requests only set {@link #cancelled}.
 */
final class ReplicaMove {
    final TopicPartition tp;
    final PartitionLog source;
    final Path destination;
    final String moveId = UUID.randomUUID().toString().replace("-", "");
    final Path futureDir;
    /** The lowest end a truncation of the source left since the copier last looked; MAX_VALUE when none. */
    final AtomicLong truncatedTo = new AtomicLong(Long.MAX_VALUE);

    volatile PartitionLog future;
    /** Every 5 s of a long copy: offsets copied of how many the current log holds. */
    ProgressReporter progress;

    volatile boolean cancelled;
    /** Set once the current log is retired: from then on the future's files are the replica and never deleted. */
    volatile boolean swapping;

    ReplicaMove(PartitionLog source, Path destination) {
        this.tp = source.topicPartition();
        this.source = source;
        this.destination = destination;
        this.futureDir =
                destination.resolve(source.dir().getFileName() + "." + moveId + ReplicaDirMover.FUTURE_DIR_SUFFIX);
    }

    /** The future log starts at the first batch holding the current log start offset (or its end when empty). */
    void startAtSourceStart() {
        long start = source.logStartOffset();
        long firstBatch;
        try {
            ByteBuffer first =
                    source.read(start, 1, source.logEndOffset(), true).records();
            firstBatch = first.remaining() >= Long.BYTES ? first.getLong(first.position()) : source.logEndOffset();
        } catch (OffsetOutOfRangeException e) {
            firstBatch = source.logEndOffset(); // retention moved the start meanwhile; the next step starts again
        }
        if (firstBatch != future.logEndOffset() || future.logEndOffset() != future.logStartOffset()) {
            future.truncateFullyAndStartAt(firstBatch);
        }
    }

    void followTruncation() {
        long cutTo = truncatedTo.getAndSet(Long.MAX_VALUE);
        if (cutTo == Long.MAX_VALUE || cutTo >= future.logEndOffset()) {
            return;
        }
        if (cutTo <= future.logStartOffset() || source.logStartOffset() >= cutTo) {
            // emptied and started anew (or cut below the copy's start): the copy starts again where it starts
            startAtSourceStart();
        } else {
            future.truncateTo(cutTo);
        }
    }

    /** Copies up to a chunk of batches; true when the future log then ends where the current one ended. */
    boolean copyChunk(StepFaults faults) {
        long end = source.logEndOffset();
        long from = future.logEndOffset();
        if (from >= end) {
            return true;
        }
        ByteBuffer records;
        try {
            records = source.read(from, ReplicaDirMover.COPY_CHUNK_BYTES, end, true)
                    .records();
        } catch (OffsetOutOfRangeException e) {
            // retention (or a full truncation) moved the current log's start past what was copied
            startAtSourceStart();
            return false;
        }
        if (!records.hasRemaining()) {
            return false;
        }
        try {
            faults.before("copy-chunk");
            future.appendAsFollower(records);
        } catch (IOException e) {
            throw new KafkaStorageException("step copy-chunk failed", e);
        } catch (OffsetOutOfRangeException | OffsetOverlapException e) {
            // the current log was rewritten under the copy (a truncation not yet seen): copy it again
            startAtSourceStart();
            return false;
        }
        return future.logEndOffset() >= end;
    }
}
