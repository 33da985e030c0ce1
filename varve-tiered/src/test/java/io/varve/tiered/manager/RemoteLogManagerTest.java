package io.varve.tiered.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.LogManagerConfig;
import io.varve.storage.PartitionLog;
import io.varve.tiered.fs.FileSystemRemoteStorage;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataStore;
import io.varve.tiered.metadata.RemoteSegmentId;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.SegmentFiles;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The remote log manager against real partition logs and the filesystem backend, on a fake clock. */
class RemoteLogManagerTest {

    private static final TopicPartition TP = new TopicPartition("tiered", 0);
    private static final long T0 = 1_700_000_000_000L;
    private static final LogConfig TIERED = LogConfig.builder()
            .segmentBytes(4096)
            .fileDeleteDelayMs(0)
            .remoteStorageEnable(true)
            .retentionMs(LogConfig.UNLIMITED)
            .localRetentionBytes(1)
            .build();

    @TempDir
    Path root;

    private final AtomicLong clock = new AtomicLong(T0);
    private final Uuid topicId = Uuid.randomUuid();
    private Path logDir;
    private Path bucket;
    private LogManager logs;
    private FlakyStorage storage;
    private RemoteLogManager manager;

    @BeforeEach
    void start() throws IOException {
        logDir = root.resolve("data");
        bucket = root.resolve("bucket");
        logs = new LogManager(
                List.of(logDir),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks(),
                clock::get);
        startManager();
    }

    private void startManager() throws IOException {
        storage = new FlakyStorage(new FileSystemRemoteStorage(bucket, ""));
        manager = RemoteLogManager.start(
                RemoteLogManagerConfig.defaults().withBackoff(new RetryBackoff(1000, 8000, 0)),
                storage,
                List.of(logDir),
                logs::allLogs,
                log -> Long.MAX_VALUE,
                clock::get,
                false);
    }

    @AfterEach
    void stop() {
        manager.close();
        logs.close();
    }

    private TopicIdPartition tip() {
        return new TopicIdPartition(topicId, TP);
    }

    /** {@code segments} rolled segments of ten 1-record batches each, then one more record in the active segment. */
    private PartitionLog logWithRolledSegments(LogConfig config, int segments) {
        PartitionLog log = logs.getOrCreateLog(TP, topicId, config);
        for (int s = 0; s < segments; s++) {
            for (int i = 0; i < 10; i++) {
                append(log, T0 + log.logEndOffset());
            }
            rollViaSegmentMs(log);
        }
        append(log, T0);
        return log;
    }

    /** Where {@link #append} stops moving the high watermark (it never goes back). */
    private long highWatermarkCap = Long.MAX_VALUE;

    private void append(PartitionLog log, long timestampMs) {
        ByteBuffer batch = MemoryRecords.withRecords(
                        Compression.NONE,
                        new SimpleRecord(timestampMs, ("k" + log.logEndOffset()).getBytes(), new byte[100]))
                .buffer();
        log.appendAsLeader(batch, 0, timestampMs);
        log.updateHighWatermark(Math.min(log.logEndOffset(), highWatermarkCap));
    }

    private static void rollViaSegmentMs(PartitionLog log) {
        LogConfig config = log.config();
        log.updateConfig(config.withSegmentMs(1));
        log.rollIfSegmentMsElapsed(Long.MAX_VALUE / 2);
        log.updateConfig(config);
    }

    private List<Path> objects() throws IOException {
        if (!Files.exists(bucket)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(bucket)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    private long logObjects() throws IOException {
        return objects().stream()
                .filter(p -> p.getFileName().toString().endsWith(".log"))
                .count();
    }

    @Test
    void uploadsRolledSegmentsInOrderThenLocalRetentionFreesOnlyUploadedCopies() throws IOException {
        PartitionLog log = logWithRolledSegments(TIERED, 3);

        manager.runOnce();

        assertThat(manager.copiedSegments(tip()))
                .extracting(RemoteSegmentMetadata::startOffset)
                .containsExactly(0L, 10L, 20L);
        assertThat(logObjects()).isEqualTo(3);
        assertThat(objects())
                .as("log, index, timeindex, snapshot, leader epochs per segment")
                .hasSize(15);
        assertThat(log.highestUploadedOffset()).isEqualTo(29);
        assertThat(manager.uploadLag()).isEqualTo(UploadLag.NONE);
        assertThat(manager.stats().segmentsCopied()).isEqualTo(3);

        log.deleteOldSegments(clock.get());
        assertThat(log.segmentBaseOffsets()).containsExactly(30L);
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.localLogStartOffset()).isEqualTo(30);
        assertThat(manager.segmentForOffset(tip(), 15))
                .map(RemoteSegmentMetadata::startOffset)
                .contains(10L);
    }

    @Test
    void anUploadWhoseSegmentWasSwappedMeanwhileIsAbandonedAndRetriedWithTheNewFile() throws IOException {
        PartitionLog log = logWithRolledSegments(TIERED, 1);
        Path segmentFile = log.dir().resolve("00000000000000000000.log");
        byte[] original = Files.readAllBytes(segmentFile);
        // what a compaction swap does: another file (here the same bytes but one batch shorter) under the same name
        storage.afterNextCopy = () -> {
            try {
                Path cleaned = log.dir().resolve("00000000000000000000.log.test");
                Files.write(cleaned, java.util.Arrays.copyOf(original, original.length / 2));
                Files.move(
                        cleaned,
                        segmentFile,
                        java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        };

        manager.runOnce();

        assertThat(manager.copiedSegments(tip()))
                .as("the upload read a file that changed: not kept")
                .isEmpty();
        assertThat(logObjects()).as("its objects were deleted").isZero();
        assertThat(manager.stats().failedRuns()).isEqualTo(1);
    }

    @Test
    void theActiveSegmentAndOffsetsAtOrAboveTheHighWatermarkAreNotUploaded() {
        highWatermarkCap = 15;
        PartitionLog log = logWithRolledSegments(TIERED, 2);

        manager.runOnce();

        assertThat(manager.copiedSegments(tip()))
                .extracting(RemoteSegmentMetadata::endOffset)
                .containsExactly(9L);
        assertThat(manager.uploadLag())
                .isEqualTo(new UploadLag(log.rolledSegmentViews().get(1).sizeBytes(), 1));
    }

    @Test
    void whileTheStoreIsDownLocalDataIsKeptAndUploadsResumeAfterBackoff() throws IOException {
        PartitionLog log = logWithRolledSegments(TIERED, 2);
        storage.down = true;

        manager.runOnce();
        log.deleteOldSegments(clock.get());

        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 10L, 20L);
        assertThat(manager.uploadLag().segments()).isEqualTo(2);
        assertThat(manager.stats().failedRuns()).isEqualTo(1);

        storage.down = false;
        manager.runOnce();
        assertThat(manager.copiedSegments(tip())).as("still backing off").isEmpty();
        clock.addAndGet(1000);
        manager.runOnce();
        assertThat(manager.copiedSegments(tip())).hasSize(2);
        assertThat(logObjects()).as("the failed attempt left no object").isEqualTo(2);
        log.deleteOldSegments(clock.get());
        assertThat(log.segmentBaseOffsets()).containsExactly(20L);
    }

    @Test
    void startUpCleansUpAnUploadACrashLeftHalfDone() throws Exception {
        PartitionLog log = logWithRolledSegments(TIERED, 1);
        manager.close();
        // a crash after the objects were written but before COPY_SEGMENT_FINISHED
        RemoteSegmentMetadata orphan;
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(logDir)) {
            orphan = store.append(new SegmentAdded(RemoteSegmentMetadata.copyStarted(
                    RemoteSegmentId.generate(tip()), 0, 9, T0, new TreeMap<>(java.util.Map.of(0, 0L)), 100, T0)));
        }
        new FileSystemRemoteStorage(bucket, "")
                .copySegment(
                        orphan,
                        new SegmentFiles(
                                log.rolledSegmentViews().get(0).logFile(),
                                        log.rolledSegmentViews().get(0).offsetIndexFile(),
                                log.rolledSegmentViews().get(0).timeIndexFile(),
                                        log.rolledSegmentViews().get(0).producerSnapshotFile(),
                                ByteBuffer.allocate(0), Optional.empty()));
        assertThat(logObjects()).isEqualTo(1);
        startManager();

        manager.runOnce();

        List<RemoteSegmentMetadata> segments = manager.copiedSegments(tip());
        assertThat(segments).hasSize(1);
        assertThat(segments.get(0).segmentId()).isNotEqualTo(orphan.segmentId());
        List<String> names = new ArrayList<>();
        for (Path object : objects()) {
            names.add(object.getFileName().toString());
        }
        assertThat(names)
                .allMatch(name -> name.contains(segments.get(0).segmentId().id().toString()));
    }

    @Test
    void remoteRetentionDeletesExpiredSegmentsAndMovesTheLogStartOffset() throws IOException {
        PartitionLog log = logWithRolledSegments(TIERED.withRetentionMs(60_000), 3);
        manager.runOnce();
        log.deleteOldSegments(clock.get());

        clock.set(T0 + 19 + 60_001); // segments [0, 9] and [10, 19] expired, [20, 29] (max timestamp T0 + 29) not
        manager.runOnce();

        assertThat(log.logStartOffset()).isEqualTo(20);
        assertThat(manager.copiedSegments(tip()))
                .extracting(RemoteSegmentMetadata::startOffset)
                .containsExactly(20L);
        assertThat(logObjects()).isEqualTo(1);
    }

    @Test
    void deleteRecordsIntoTheRemotePartDeletesRemoteSegmentsWhollyBelowTheStart() throws IOException {
        PartitionLog log = logWithRolledSegments(TIERED, 3);
        manager.runOnce();
        log.deleteOldSegments(clock.get());

        log.deleteRecordsBefore(12);
        manager.runOnce();

        assertThat(manager.copiedSegments(tip()))
                .extracting(RemoteSegmentMetadata::startOffset)
                .containsExactly(10L, 20L);
        assertThat(logObjects()).isEqualTo(2);
    }

    @Test
    void aDeletedTopicLosesItsRemoteData() throws IOException {
        logWithRolledSegments(TIERED, 2);
        manager.runOnce();
        assertThat(logObjects()).isEqualTo(2);

        logs.deleteLog(TP);
        manager.runOnce();

        assertThat(objects()).isEmpty();
        assertThat(manager.copiedSegments(tip())).isEmpty();
    }

    @Test
    void afterARestartTheLogStartOffsetComesBackFromRemoteStorage() throws IOException {
        PartitionLog log = logWithRolledSegments(TIERED, 3);
        manager.runOnce();
        log.deleteOldSegments(clock.get());
        assertThat(log.localLogStartOffset()).isEqualTo(30);
        manager.close();
        logs.close();
        // lose the checkpoint: the start must still come back from what remote storage holds
        Files.deleteIfExists(logDir.resolve("log-start-offset-checkpoint"));

        logs = new LogManager(
                List.of(logDir),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks(),
                clock::get);
        PartitionLog reopened = logs.getOrCreateLog(TP, topicId, TIERED);
        assertThat(reopened.logStartOffset()).isEqualTo(30);
        startManager();
        manager.runOnce();

        assertThat(reopened.logStartOffset()).isZero();
        assertThat(reopened.localLogStartOffset()).isEqualTo(30);
        assertThat(reopened.highestUploadedOffset()).isEqualTo(29);
    }

    @Test
    void remoteDataIsDeletedWhenRemoteStorageIsDisabledWithDeleteOnDisable() throws IOException {
        PartitionLog log = logWithRolledSegments(TIERED, 2);
        manager.runOnce();
        log.deleteOldSegments(clock.get());

        log.updateConfig(TIERED.toBuilder()
                .remoteStorageEnable(false)
                .remoteLogDeleteOnDisable(true)
                .build());
        manager.runOnce();

        assertThat(objects()).isEmpty();
        assertThat(log.logStartOffset()).isEqualTo(20);
    }
}
