package io.varve.tiered.manager;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.storage.producer.ProducerSnapshotFiles;
import io.varve.storage.producer.ProducerStateEntry;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.spi.IndexType;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a follower needs to start its log at {@code startOffset} when everything below it is only in the remote tier
 * (KIP-405's follower path): the leader epochs up to there and the producer state there — both uploaded with the
 * remote segment ending right below it — and where the remote data starts (the log start offset).
 *
 * @param startOffset          where the follower's local log starts: the end of that remote segment plus one
 * @param remoteLogStartOffset the first offset of the remote segments reaching {@code startOffset} without a gap
 */
public record FollowerStart(
        long startOffset,
        long remoteLogStartOffset,
        List<EpochEntry> leaderEpochs,
        Map<Long, ProducerStateEntry> producers) {

    public FollowerStart {
        leaderEpochs = List.copyOf(leaderEpochs);
        producers = Map.copyOf(producers);
    }

    /** Reads the leader epochs and producer snapshot objects of {@code segment} (the one ending below the start). */
    static FollowerStart read(RemoteStorage storage, RemoteSegmentMetadata segment, long remoteLogStartOffset)
            throws RemoteStorageException, IOException {
        Path dir = Files.createTempDirectory("varve-follower-start");
        try {
            Path epochs = dir.resolve(LeaderEpochCheckpointFile.FILE_NAME);
            copy(storage, segment, IndexType.LEADER_EPOCH, epochs);
            List<EpochEntry> entries = new ArrayList<>();
            for (EpochEntry entry : new LeaderEpochCheckpointFile(dir).read()) {
                if (entry.startOffset() <= segment.endOffset()) {
                    entries.add(entry);
                }
            }
            Path snapshot = dir.resolve("producer.snapshot");
            copy(storage, segment, IndexType.PRODUCER_SNAPSHOT, snapshot);
            // a zero-byte object: the segment was rolled before the log was tiered and had no snapshot
            Map<Long, ProducerStateEntry> producers = Files.size(snapshot) == 0
                    ? Map.of()
                    : ProducerSnapshotFiles.read(snapshot).producers();
            return new FollowerStart(segment.endOffset() + 1, remoteLogStartOffset, entries, producers);
        } finally {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(dir);
        }
    }

    private static void copy(RemoteStorage storage, RemoteSegmentMetadata segment, IndexType type, Path target)
            throws RemoteStorageException, IOException {
        try (InputStream in = storage.fetchIndex(segment, type)) {
            Files.copy(in, target);
        }
    }
}
