package io.varve.storage;

import io.varve.storage.segment.SegmentFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A read-only view of one rolled (immutable) segment for the remote log manager: its offsets
 * {@code [baseOffset, endOffset]} (the end is the next segment's base offset less one), largest timestamp as
 * retention sees it (the largest batch timestamp, else the file's modification time; -1 if unknown), size and
 * files. {@code producerSnapshotFile} is where the producer state at the
 * segment's end is snapshotted; it may be missing (a segment rolled before the log was tiered).
 */
public record RolledSegment(
        long baseOffset,
        long endOffset,
        long maxTimestampMs,
        int sizeBytes,
        Path logFile,
        Path offsetIndexFile,
        Path timeIndexFile,
        Path producerSnapshotFile) {

    public RolledSegment {
        if (baseOffset < 0 || endOffset < baseOffset || sizeBytes < 0) {
            throw new IllegalArgumentException(
                    "bad rolled segment [" + baseOffset + ", " + endOffset + "], " + sizeBytes + " bytes");
        }
    }

    /** The aborted-transaction index of the segment, when it has one. */
    public Optional<Path> txnIndexFile() {
        // LogSegment creates the file beside the log only once the segment holds an aborted transaction.
        Path file = logFile.resolveSibling(SegmentFiles.fileName(baseOffset, SegmentFiles.TXN_INDEX_SUFFIX));
        return Files.exists(file) ? Optional.of(file) : Optional.empty();
    }
}
