package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.checkpoint.OffsetCheckpointFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention by time and size, DeleteRecords, segment.ms rolls and delayed file deletion, on a fake clock. */
class PartitionLogRetentionTest {

    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final long START_MS = 1_700_000_000_000L;
    private static final LogConfig CONFIG =
            LogConfig.builder().segmentBytes(4096).fileDeleteDelayMs(60_000).build();

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    private final AtomicLong clock = new AtomicLong(START_MS);
    private final Uuid topicId = Uuid.randomUuid();
    private LogManager manager;

    @BeforeEach
    void start() {
        manager = new LogManager(
                List.of(root), CONFIG, LogManagerConfig.defaults().withoutBackgroundTasks(), clock::get);
    }

    @AfterEach
    void stop() {
        manager.close();
    }

    private PartitionLog log(LogConfig config) {
        return manager.getOrCreateLog(TP, topicId, config);
    }

    /** Where {@link #append} stops moving the high watermark (it never goes back). */
    private long highWatermarkCap = Long.MAX_VALUE;

    /** Appends one 2-record batch stamped with the clock's time and moves the high watermark along. */
    private void append(PartitionLog log, long timestampMs, long nowMs) {
        log.appendAsLeader(TestBatches.batchAt("v" + log.logEndOffset(), 2, 50, timestampMs, false), 0, nowMs);
        log.updateHighWatermark(Math.min(log.logEndOffset(), highWatermarkCap));
    }

    /** Four segments of two batches each (offsets 0-3, 4-7, 8-11, 12-15), stamped 1, 2, 3 and 4 minutes in. */
    private PartitionLog fourSegments(LogConfig config) {
        PartitionLog log = log(config);
        for (int segment = 1; segment <= 4; segment++) {
            long timestampMs = START_MS + segment * 60_000L;
            append(log, timestampMs, timestampMs);
            append(log, timestampMs, timestampMs);
            if (segment < 4) {
                log.roll();
            }
        }
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 4L, 8L, 12L);
        return log;
    }

    @Test
    void segmentsWhoseLargestTimestampIsOlderThanRetentionMsGoFromTheHead() {
        PartitionLog log = fourSegments(CONFIG.withRetentionMs(100_000));
        long nowMs = START_MS + 4 * 60_000L;

        assertThat(log.deleteOldSegments(nowMs)).isEqualTo(2);
        assertThat(log.segmentBaseOffsets()).containsExactly(8L, 12L);
        assertThat(log.logStartOffset()).isEqualTo(8);
        assertThat(log.logEndOffset()).isEqualTo(16);
        assertThatThrownBy(() -> log.read(7, 1000, Long.MAX_VALUE, true)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(LogTestSupport.readAll(log)).hasSize(8).first().asString().startsWith("8:");
        assertThat(log.deleteOldSegments(nowMs)).isZero();
    }

    @Test
    void anUnexpiredSegmentStopsRetentionEvenWhenALaterOneIsOlder() {
        PartitionLog log = log(CONFIG.withRetentionMs(60_000));
        append(log, START_MS + 500_000, START_MS);
        log.roll();
        append(log, START_MS, START_MS);
        log.roll();
        append(log, START_MS, START_MS);

        assertThat(log.deleteOldSegments(START_MS + 200_000)).isZero();
        assertThat(log.segmentCount()).isEqualTo(3);
    }

    @Test
    void retentionBytesDeletesHeadSegmentsWhileWhatRemainsStillReachesIt() {
        PartitionLog log = fourSegments(CONFIG);
        long segmentBytes = log.sizeBytes() / 4;
        log.updateConfig(CONFIG.withRetentionBytes(2 * segmentBytes - 1));

        assertThat(log.deleteOldSegments(START_MS)).isEqualTo(2);
        assertThat(log.segmentBaseOffsets()).containsExactly(8L, 12L);
        assertThat(log.sizeBytes()).isEqualTo(2 * segmentBytes);
    }

    @Test
    void whenEverythingExpiredTheActiveSegmentGoesTooAfterARoll() {
        PartitionLog log = log(CONFIG.withRetentionMs(1_000));
        append(log, START_MS, START_MS);
        append(log, START_MS, START_MS);

        assertThat(log.deleteOldSegments(START_MS + 2_000)).isEqualTo(1);
        assertThat(log.segmentBaseOffsets()).containsExactly(4L);
        assertThat(log.logStartOffset()).isEqualTo(4);
        assertThat(log.logEndOffset()).isEqualTo(4);
        assertThat(log.read(4, 1000, Long.MAX_VALUE, true).records().remaining())
                .isZero();
        append(log, START_MS + 2_000, START_MS + 2_000);
        assertThat(LogTestSupport.readAll(log)).containsExactly("4:v4-0" + "x".repeat(46), "5:v4-1" + "x".repeat(46));
    }

    @Test
    void segmentsHoldingOffsetsAtOrAboveTheHighWatermarkAreKept() {
        highWatermarkCap = 7;
        PartitionLog log = fourSegments(CONFIG.withRetentionMs(1));
        assertThat(log.highWatermark()).isEqualTo(7);

        assertThat(log.deleteOldSegments(START_MS + 3_600_000)).isEqualTo(1);
        assertThat(log.segmentBaseOffsets()).containsExactly(4L, 8L, 12L);
    }

    @Test
    void compactOnlyTopicsAreNotDeletedByRetentionNorDeleteRecords() {
        // written while the topic was not compacted (a compacted one refuses these keyless records), then switched
        PartitionLog log = fourSegments(CONFIG);
        log.updateConfig(
                CONFIG.withRetentionMs(1).withRetentionBytes(0).withCleanupPolicy(Set.of(CleanupPolicy.COMPACT)));

        assertThat(log.deleteOldSegments(START_MS + 3_600_000)).isZero();
        assertThat(log.segmentCount()).isEqualTo(4);
        assertThatThrownBy(() -> log.deleteRecordsBefore(5)).isInstanceOf(PolicyViolationException.class);
    }

    @Test
    void deleteRecordsMovesTheStartForwardOnlyAndDeletesSegmentsWhollyBelowIt() {
        highWatermarkCap = 14;
        PartitionLog log = fourSegments(CONFIG);

        assertThat(log.deleteRecordsBefore(9)).isEqualTo(9);
        assertThat(log.segmentBaseOffsets()).containsExactly(8L, 12L);
        assertThatThrownBy(() -> log.read(8, 1000, Long.MAX_VALUE, true)).isInstanceOf(OffsetOutOfRangeException.class);
        // the batch holding the start is returned whole, as Kafka does
        assertThat(TestBatches.batches(log.read(9, 1, Long.MAX_VALUE, true).records())
                        .get(0)
                        .baseOffset())
                .isEqualTo(8);
        assertThat(log.deleteRecordsBefore(3)).as("never backwards").isEqualTo(9);
        assertThatThrownBy(() -> log.deleteRecordsBefore(17)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThatThrownBy(() -> log.deleteRecordsBefore(-2)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThatThrownBy(() -> log.deleteRecordsBefore(15)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(log.deleteRecordsBefore(PartitionLog.HIGH_WATERMARK)).isEqualTo(14);
        assertThat(log.segmentBaseOffsets()).containsExactly(12L);
    }

    @Test
    void theLogStartOffsetSurvivesCleanAndUncleanRestarts() throws Exception {
        fourSegments(CONFIG).deleteRecordsBefore(6);
        // DeleteRecords persists at once: a crash right after it keeps the new start
        assertThat(new OffsetCheckpointFile(root, OffsetCheckpointFile.LOG_START_OFFSET_FILE).read())
                .containsEntry(TP, 6L);
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root));
        start();
        assertThat(log(CONFIG).logStartOffset()).isEqualTo(6);
        manager.close();
        start();
        PartitionLog reopened = log(CONFIG);
        assertThat(reopened.logStartOffset()).isEqualTo(6);
        assertThatThrownBy(() -> reopened.read(5, 100, Long.MAX_VALUE, true))
                .isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void runRetentionPersistsTheMovedLogStartOffsetsOfTheLogDir() {
        fourSegments(CONFIG.withRetentionMs(90_000));
        manager.runRetention(START_MS + 4 * 60_000L);
        assertThat(new OffsetCheckpointFile(root, OffsetCheckpointFile.LOG_START_OFFSET_FILE).read())
                .containsEntry(TP, 8L);
    }

    @Test
    void segmentMsRollsANonEmptyActiveSegmentAtTheRetentionCheckAndAtAppend() {
        PartitionLog log = log(CONFIG.withSegmentMs(10_000));
        assertThat(log.rollIfSegmentMsElapsed(START_MS + 1_000_000))
                .as("empty segments never roll")
                .isFalse();
        append(log, START_MS, START_MS);
        assertThat(log.rollIfSegmentMsElapsed(START_MS + 10_000)).isFalse();
        manager.runRetention(START_MS + 10_001);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);

        append(log, START_MS + 20_000, START_MS + 20_000);
        append(log, START_MS + 30_001, START_MS + 30_001);
        assertThat(log.segmentBaseOffsets())
                .as("rolled by the append after segment.ms")
                .containsExactly(0L, 2L, 4L);
    }

    @Test
    void segmentJitterRollsEarlierButNeverBeforeSegmentMsLessTheJitter() {
        PartitionLog log = log(CONFIG.withSegmentMs(10_000).withSegmentJitterMs(4_000));
        append(log, START_MS, START_MS);
        assertThat(log.rollIfSegmentMsElapsed(START_MS + 6_000)).isFalse();
        assertThat(log.rollIfSegmentMsElapsed(START_MS + 10_001)).isTrue();
    }

    @Test
    void deletedSegmentFilesAndChannelsLiveForFileDeleteDelayMs() throws Exception {
        PartitionLog log = fourSegments(CONFIG.withRetentionMs(100_000).withFileDeleteDelayMs(60_000));
        LogSlice inFlight = log.readSlice(0, 100_000, Long.MAX_VALUE, true);
        assertThat(inFlight.sizeBytes()).isPositive();
        long nowMs = START_MS + 4 * 60_000L;

        log.deleteOldSegments(nowMs);
        assertThat(fileNames(log.dir()))
                .contains(
                        "00000000000000000000.log.deleted",
                        "00000000000000000000.index.deleted",
                        "00000000000000000000.timeindex.deleted")
                .doesNotContain("00000000000000000000.log");
        ByteBuffer bytes = ByteBuffer.allocate(inFlight.sizeBytes());
        inFlight.channel().read(bytes, inFlight.position());
        assertThat(TestBatches.offsetsAndValues(bytes.flip()))
                .hasSize(4)
                .first()
                .asString()
                .startsWith("0:");

        assertThat(manager.deleteRetiredSegments(nowMs + 59_999)).isZero();
        assertThat(manager.deleteRetiredSegments(nowMs + 60_000)).isEqualTo(2);
        assertThat(fileNames(log.dir())).noneMatch(name -> name.endsWith(".deleted"));
        assertThat(inFlight.channel().isOpen()).isFalse();
    }

    @Test
    void leftoverDeletedFilesAreRemovedWhenTheLogNextOpens() throws Exception {
        PartitionLog log = fourSegments(CONFIG.withRetentionMs(100_000));
        log.deleteOldSegments(START_MS + 4 * 60_000L);
        manager.close();
        start();
        assertThat(log(CONFIG).logStartOffset()).isEqualTo(8);
        assertThat(fileNames(log.dir())).noneMatch(name -> name.endsWith(".deleted"));
    }

    private static List<String> fileNames(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
