package io.varve.tiered.spi;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The local files of one rolled segment, handed to {@link RemoteStorage#copySegment}. The leader-epoch checkpoint
 * is given as bytes because the local checkpoint covers the whole log: the caller cuts it to the entries up to the
 * segment's end. The aborted-transaction index is optional (absent when the segment holds no aborted transaction).
 */
public record SegmentFiles(
        Path log,
        Path offsetIndex,
        Path timeIndex,
        Path producerSnapshot,
        ByteBuffer leaderEpochCheckpoint,
        Optional<Path> abortedTxnIndex) {
    public SegmentFiles {
        Objects.requireNonNull(log, "log");
        Objects.requireNonNull(offsetIndex, "offsetIndex");
        Objects.requireNonNull(timeIndex, "timeIndex");
        Objects.requireNonNull(producerSnapshot, "producerSnapshot");
        Objects.requireNonNull(leaderEpochCheckpoint, "leaderEpochCheckpoint");
        Objects.requireNonNull(abortedTxnIndex, "abortedTxnIndex");
        leaderEpochCheckpoint = leaderEpochCheckpoint.asReadOnlyBuffer();
    }

    /** The file for an index type uploaded from a path; empty for {@link IndexType#LEADER_EPOCH} (bytes) and an absent txn index. */
    public Optional<Path> file(IndexType type) {
        return switch (type) {
            case OFFSET -> Optional.of(offsetIndex);
            case TIMESTAMP -> Optional.of(timeIndex);
            case PRODUCER_SNAPSHOT -> Optional.of(producerSnapshot);
            case TRANSACTION -> abortedTxnIndex;
            case LEADER_EPOCH -> Optional.empty();
        };
    }
}
