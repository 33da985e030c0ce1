package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local retention of a tiered log: only confirmed uploads leave the local disk, the log start offset stays, and
 * the checkpointed start below the first local segment survives a restart until remote storage confirms it.
 */
class PartitionLogTieredRetentionTest {

    private static final TopicPartition TP = new TopicPartition("tiered", 0);
    private static final long START_MS = 1_700_000_000_000L;
    private static final LogConfig TIERED = LogConfig.builder()
            .segmentBytes(4096)
            .fileDeleteDelayMs(0)
            .remoteStorageEnable(true)
            .retentionMs(LogConfig.UNLIMITED)
            .localRetentionBytes(1)
            .build();

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    private final AtomicLong clock = new AtomicLong(START_MS);
    private final Uuid topicId = Uuid.randomUuid();
    private LogManager manager;

    @BeforeEach
    void start() {
        manager = new LogManager(
                List.of(root), LogConfig.defaults(), LogManagerConfig.defaults().withoutBackgroundTasks(), clock::get);
    }

    @AfterEach
    void stop() {
        manager.close();
    }

    /** Four segments of two 2-record batches each: offsets 0-3, 4-7, 8-11, 12-15 (the last one active). */
    private PartitionLog fourSegments(LogConfig config) {
        PartitionLog log = manager.getOrCreateLog(TP, topicId, config);
        for (int segment = 1; segment <= 4; segment++) {
            for (int batch = 0; batch < 2; batch++) {
                log.appendAsLeader(TestBatches.batchAt("v" + log.logEndOffset(), 2, 50, START_MS, false), 0, START_MS);
                log.updateHighWatermark(log.logEndOffset());
            }
            if (segment < 4) {
                log.roll();
            }
        }
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 4L, 8L, 12L);
        return log;
    }

    @Test
    void localRetentionDeletesNothingThatIsNotConfirmedUploaded() {
        PartitionLog log = fourSegments(TIERED);

        assertThat(log.deleteOldSegments(START_MS)).isZero();
        log.updateHighestUploadedOffset(6); // segment [4, 7] only partly covered
        assertThat(log.deleteOldSegments(START_MS)).isEqualTo(1);

        assertThat(log.segmentBaseOffsets()).containsExactly(4L, 8L, 12L);
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.localLogStartOffset()).isEqualTo(4);
    }

    @Test
    void localRetentionByTimeKeepsTheLogStartOffsetAndNeverTakesTheActiveSegment() {
        PartitionLog log = fourSegments(TIERED.toBuilder()
                .localRetentionBytes(LogConfig.LOCAL_RETENTION_AS_TOTAL)
                .localRetentionMs(1000)
                .build());
        log.updateHighestUploadedOffset(1_000);

        assertThat(log.deleteOldSegments(START_MS + 60_000)).isEqualTo(3);

        assertThat(log.segmentBaseOffsets()).containsExactly(12L);
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.localLogStartOffset()).isEqualTo(12);
    }

    @Test
    void withoutRemoteStorageTheSameConfigDeletesByTotalRetentionAndMovesTheStart() {
        PartitionLog log = fourSegments(TIERED.withRemoteStorageEnable(false).withRetentionBytes(1));

        assertThat(log.deleteOldSegments(START_MS)).isEqualTo(3);
        assertThat(log.logStartOffset()).isEqualTo(12);
        assertThat(log.localLogStartOffset()).isEqualTo(12);
    }

    @Test
    void advancingTheLogStartOffsetRetiresLocalCopiesBelowIt() {
        PartitionLog log = fourSegments(TIERED);

        assertThat(log.advanceLogStartOffset(9, "test")).isEqualTo(9);

        assertThat(log.segmentBaseOffsets()).containsExactly(8L, 12L);
        assertThat(log.localLogStartOffset()).isEqualTo(9);
    }

    @Test
    void aCheckpointedStartBelowTheLocalSegmentsSurvivesARestartUntilRemoteStorageConfirmsIt() {
        PartitionLog log = fourSegments(TIERED);
        log.updateHighestUploadedOffset(7);
        log.deleteOldSegments(START_MS);
        log.advanceLogStartOffset(2, "test"); // e.g. DeleteRecords into the remote part
        assertThat(log.localLogStartOffset()).isEqualTo(8);

        manager.close();
        manager = new LogManager(
                List.of(root), LogConfig.defaults(), LogManagerConfig.defaults().withoutBackgroundTasks(), clock::get);
        PartitionLog reopened = manager.getOrCreateLog(TP, topicId, TIERED);
        assertThat(reopened.logStartOffset())
                .as("clamped until remote storage confirms")
                .isEqualTo(8);
        manager.checkpoint(); // the pending start must not be overwritten by the clamped one
        manager.close();
        manager = new LogManager(
                List.of(root), LogConfig.defaults(), LogManagerConfig.defaults().withoutBackgroundTasks(), clock::get);
        reopened = manager.getOrCreateLog(TP, topicId, TIERED);

        assertThat(reopened.restoreLogStartOffsetFromRemote(0)).isEqualTo(2);
        assertThat(reopened.localLogStartOffset()).isEqualTo(8);
        assertThat(reopened.restoreLogStartOffsetFromRemote(0)).as("only once").isEqualTo(2);
    }

    @Test
    void producerSnapshotsOfSegmentsNotUploadedAreKeptBeyondTheUsualFew() throws Exception {
        PartitionLog log = manager.getOrCreateLog(TP, topicId, TIERED);
        for (int segment = 0; segment < 6; segment++) {
            log.appendAsLeader(TestBatches.batchAt("v" + log.logEndOffset(), 2, 50, START_MS, false), 0, START_MS);
            log.updateHighWatermark(log.logEndOffset());
            log.roll();
        }
        assertThat(log.rolledSegmentViews()).hasSize(6).allMatch(s -> Files.exists(s.producerSnapshotFile()));

        log.updateHighestUploadedOffset(7); // segments [0, 1] .. [6, 7] uploaded
        log.appendAsLeader(TestBatches.batchAt("v" + log.logEndOffset(), 2, 50, START_MS, false), 0, START_MS);
        log.roll();

        List<RolledSegment> views = log.rolledSegmentViews();
        assertThat(views.subList(4, views.size())).allMatch(s -> Files.exists(s.producerSnapshotFile()));
        assertThat(Files.exists(views.get(0).producerSnapshotFile()))
                .as("uploaded: pruned as usual")
                .isFalse();
        assertThat(log.rolledSegmentViews())
                .extracting(RolledSegment::endOffset)
                .startsWith(1L, 3L, 5L);
    }
}
