package io.varve.tiered.read;

import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import io.varve.storage.segment.SegmentFiles;
import io.varve.tiered.fs.FileSystemRemoteStorage;
import io.varve.tiered.metadata.RemoteLogMetadataCache;
import io.varve.tiered.metadata.RemoteLogMetadataEvent;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.RemoteSegmentState;
import io.varve.tiered.metadata.TopicIdPartition;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Real segments for reader tests: written by the storage engine into a local log, copied to a filesystem remote
 * storage through the SPI, and recorded as COPY_SEGMENT_FINISHED in a metadata cache.
 */
final class TieredFixture implements AutoCloseable {
    static final TopicIdPartition PARTITION =
            new TopicIdPartition(Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ"), "tiered", 0);
    static final long BASE_TIMESTAMP_MS = 1_700_000_000_000L;

    final Path root;
    final FileSystemRemoteStorage storage;
    final RemoteLogMetadataCache metadata = new RemoteLogMetadataCache();
    final RemoteSegmentSource source;
    private final List<LogManager> logManagers = new ArrayList<>();

    TieredFixture(Path root) {
        this.root = root;
        this.storage = new FileSystemRemoteStorage(root.resolve("bucket"), "");
        this.source = RemoteSegmentSource.of(new RemoteSegmentSource.QueryRunner() {
            @Override
            public <T> T read(Function<RemoteLogMetadataCache, T> query) {
                synchronized (metadata) {
                    return query.apply(metadata);
                }
            }
        });
    }

    /** A local log with small segments and dense indexes. */
    PartitionLog newLog(String name, long segmentBytes) {
        LogConfig config = LogConfig.defaults().withSegmentBytes(segmentBytes).withIndexIntervalBytes(128);
        LogManager manager = new LogManager(List.of(root.resolve("local-" + name)), config);
        logManagers.add(manager);
        return manager.getOrCreateLog(
                new TopicPartition(PARTITION.topic(), PARTITION.partition()), PARTITION.topicId(), config);
    }

    /** Appends {@code batches} batches of {@code recordsPerBatch} records; record i of the log has timestamp BASE + offset. */
    static void append(
            PartitionLog log, String prefix, int batches, int recordsPerBatch, int valueBytes, int leaderEpoch) {
        for (int b = 0; b < batches; b++) {
            long firstOffset = log.logEndOffset();
            SimpleRecord[] records = new SimpleRecord[recordsPerBatch];
            for (int r = 0; r < recordsPerBatch; r++) {
                long offset = firstOffset + r;
                String value = prefix + "-" + offset + "-" + "x".repeat(Math.max(0, valueBytes));
                records[r] = new SimpleRecord(
                        BASE_TIMESTAMP_MS + offset,
                        ("k" + offset).getBytes(StandardCharsets.UTF_8),
                        value.getBytes(StandardCharsets.UTF_8));
            }
            ByteBuffer batch =
                    MemoryRecords.withRecords(Compression.NONE, records).buffer();
            log.appendAsLeader(batch, leaderEpoch, BASE_TIMESTAMP_MS + firstOffset);
        }
        log.updateHighWatermark(log.logEndOffset());
    }

    /** Copies every rolled segment of {@code log} (all but the active one) in leader epoch 0. */
    List<RemoteSegmentMetadata> uploadRolled(PartitionLog log) throws Exception {
        List<Long> bases = log.segmentBaseOffsets();
        List<RemoteSegmentMetadata> uploaded = new ArrayList<>();
        for (int i = 0; i + 1 < bases.size(); i++) {
            uploaded.add(upload(log, bases.get(i), bases.get(i + 1) - 1, epochs(0, bases.get(i))));
        }
        return uploaded;
    }

    /** Copies the local segment starting at {@code base} holding {@code [base, end]} with the given epochs. */
    RemoteSegmentMetadata upload(PartitionLog log, long base, long end, TreeMap<Integer, Long> epochs)
            throws Exception {
        Path dir = log.dir();
        Path logFile = SegmentFiles.logFile(dir, base);
        Path snapshot = Files.createTempFile(root, "snapshot", ".snapshot");
        long maxTimestampMs = BASE_TIMESTAMP_MS + end;
        RemoteSegmentMetadata m = RemoteSegmentMetadata.copyStarted(
                RemoteSegmentId.generate(PARTITION),
                base,
                end,
                maxTimestampMs,
                epochs,
                (int) Files.size(logFile),
                BASE_TIMESTAMP_MS);
        synchronized (metadata) {
            metadata.apply(new RemoteLogMetadataEvent.SegmentAdded(m));
        }
        storage.copySegment(
                m,
                new io.varve.tiered.spi.SegmentFiles(
                        logFile,
                        SegmentFiles.indexFile(dir, base),
                        SegmentFiles.timeIndexFile(dir, base),
                        snapshot,
                        ByteBuffer.allocate(0),
                        Optional.empty()));
        synchronized (metadata) {
            return metadata.apply(new RemoteLogMetadataEvent.SegmentStateChanged(
                    m.segmentId(), RemoteSegmentState.COPY_SEGMENT_FINISHED, BASE_TIMESTAMP_MS));
        }
    }

    /** The local bytes of the segment at {@code base}. */
    static byte[] localSegmentBytes(PartitionLog log, long base) throws IOException {
        return Files.readAllBytes(SegmentFiles.logFile(log.dir(), base));
    }

    static TreeMap<Integer, Long> epochs(long... epochAndStart) {
        TreeMap<Integer, Long> map = new TreeMap<>();
        for (int i = 0; i < epochAndStart.length; i += 2) {
            map.put((int) epochAndStart[i], epochAndStart[i + 1]);
        }
        return map;
    }

    @Override
    public void close() {
        logManagers.forEach(LogManager::close);
        storage.close();
    }
}
