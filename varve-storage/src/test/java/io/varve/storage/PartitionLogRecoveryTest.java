package io.varve.storage;

import static io.varve.storage.LogTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.segment.SegmentFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Restarts, clean and unclean: what survives and what recovery cuts off. */
class PartitionLogRecoveryTest {

    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final LogConfig SMALL_SEGMENTS =
            LogConfig.defaults().withSegmentBytes(1024).withIndexIntervalBytes(64);

    @TempDir
    Path root;

    private final Uuid topicId = Uuid.randomUuid();
    private LogManager manager;

    private PartitionLog start() {
        manager = new LogManager(List.of(root), SMALL_SEGMENTS);
        return manager.getOrCreateLog(TP, topicId, SMALL_SEGMENTS);
    }

    private PartitionLog restart() {
        manager.close();
        return start();
    }

    private PartitionLog crashAndRestart(ThrowingFileEdit damage) throws Exception {
        Path partitionDir = manager.getLog(TP).orElseThrow().dir();
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root));
        damage.apply(partitionDir);
        return start();
    }

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    interface ThrowingFileEdit {
        void apply(Path partitionDir) throws Exception;
    }

    private static void appendBatches(PartitionLog log, int batches) {
        for (int i = 0; i < batches; i++) {
            log.appendAsLeader(TestBatches.batchOfSize("v" + log.logEndOffset(), 2, 30), 4, TestBatches.CREATE_TIME_MS);
        }
    }

    @Test
    void cleanRestartKeepsDataLogEndOffsetTopicIdAndLeaderEpoch() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 25);
        log.updateHighWatermark(log.logEndOffset());
        List<String> before = readAll(log);
        int segments = log.segmentCount();

        PartitionLog reopened = restart();
        assertThat(reopened).isNotSameAs(log);
        assertThat(reopened.logEndOffset()).isEqualTo(50);
        assertThat(reopened.highWatermark()).isEqualTo(50);
        assertThat(reopened.topicId()).isEqualTo(topicId);
        assertThat(reopened.latestLeaderEpoch()).isEqualTo(4);
        assertThat(reopened.segmentCount()).isEqualTo(segments);
        assertThat(readAll(reopened)).isEqualTo(before);
        assertThat(Files.readString(reopened.dir().resolve("partition.metadata")))
                .contains(topicId.toString());

        assertThat(reopened.appendAsLeader(TestBatches.batch("more", 1), 4, TestBatches.CREATE_TIME_MS)
                        .baseOffset())
                .isEqualTo(50);
    }

    @Test
    void logLoadedAtStartUpBeforeTheBrokerAsksForItKeepsItsTopicId() {
        PartitionLog log = start();
        appendBatches(log, 1);
        manager.close();
        manager = new LogManager(List.of(root), SMALL_SEGMENTS);
        assertThat(manager.getLog(TP).orElseThrow().topicId()).isEqualTo(topicId);
    }

    @Test
    void garbageAfterTheLastBatchIsTruncatedOnUncleanRestart() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 12);
        List<String> before = readAll(log);
        Path active = LogTestSupport.lastSegmentFile(log.dir());
        long validBytes = Files.size(active);

        PartitionLog recovered = crashAndRestart(dir -> LogTestSupport.appendBytes(active, new byte[300]));

        assertThat(recovered.logEndOffset()).isEqualTo(24);
        assertThat(Files.size(active)).isEqualTo(validBytes);
        assertThat(readAll(recovered)).isEqualTo(before);
        assertThat(recovered
                        .appendAsLeader(TestBatches.batch("next", 1), 4, TestBatches.CREATE_TIME_MS)
                        .baseOffset())
                .isEqualTo(24);
    }

    @Test
    void tornLastBatchIsTruncatedOnUncleanRestart() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 3);
        Path active = LogTestSupport.lastSegmentFile(log.dir());
        long threeBatchesBytes = Files.size(active);
        appendBatches(log, 1);
        List<String> firstSix = readAll(log).subList(0, 6);

        PartitionLog recovered = crashAndRestart(dir -> LogTestSupport.truncate(active, Files.size(active) - 5));

        assertThat(recovered.logEndOffset()).isEqualTo(6);
        assertThat(Files.size(active)).isEqualTo(threeBatchesBytes);
        assertThat(readAll(recovered)).isEqualTo(firstSix);
    }

    @Test
    void garbageIsAlsoTruncatedAfterACleanShutdownMarker() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 2);
        Path active = LogTestSupport.lastSegmentFile(log.dir());
        manager.close();
        LogTestSupport.appendBytes(active, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});

        PartitionLog reopened = start();
        assertThat(reopened.logEndOffset()).isEqualTo(4);
        assertThat(readAll(reopened)).hasSize(4);
    }

    @Test
    void uncleanRestartDropsLeaderEpochsThatStartPastTheRecoveredEnd() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 2);
        log.appendAsLeader(TestBatches.batch("e9", 1), 9, TestBatches.CREATE_TIME_MS);
        Path active = LogTestSupport.lastSegmentFile(log.dir());

        PartitionLog recovered = crashAndRestart(dir -> LogTestSupport.truncate(active, Files.size(active) - 1));

        assertThat(recovered.logEndOffset()).isEqualTo(4);
        assertThat(recovered.latestLeaderEpoch()).isEqualTo(4);
    }

    @Test
    void missingIndexesAreRebuiltAndInconsistentOnesReplaced() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 40);
        List<String> before = readAll(log);
        assertThat(log.segmentCount()).isGreaterThan(3);
        Path dir = log.dir();
        manager.close();
        Path firstIndex = SegmentFiles.indexFile(dir, 0);
        long firstIndexBytes = Files.size(firstIndex);
        assertThat(firstIndexBytes).isPositive();
        Files.delete(firstIndex);
        List<Path> logs = LogTestSupport.segmentFiles(dir);
        long secondBase = SegmentFiles.parseBaseOffset(logs.get(1).getFileName().toString(), SegmentFiles.LOG_SUFFIX)
                .getAsLong();
        Files.write(SegmentFiles.indexFile(dir, secondBase), new byte[] {0, 0, 0, 9, 0, 0, 0, 1, 0, 0, 1});

        PartitionLog reopened = start();
        assertThat(Files.size(firstIndex)).isEqualTo(firstIndexBytes);
        assertThat(Files.size(SegmentFiles.indexFile(dir, secondBase)) % 8).isZero();
        assertThat(readAll(reopened)).isEqualTo(before);
        for (long offset = 0; offset < reopened.logEndOffset(); offset += 3) {
            LogReadResult read = reopened.read(offset, 1, Long.MAX_VALUE, true);
            var batch = TestBatches.batches(read.records()).get(0);
            assertThat(batch.baseOffset()).isLessThanOrEqualTo(offset);
            assertThat(batch.lastOffset()).isGreaterThanOrEqualTo(offset);
        }
    }

    @Test
    void leftoverTempAndOrphanIndexFilesAreRemovedOnLoad() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 1);
        Path dir = log.dir();
        manager.close();
        Files.writeString(dir.resolve("leader-epoch-checkpoint.tmp"), "half");
        Files.write(SegmentFiles.indexFile(dir, 12345), new byte[8]);

        start();
        assertThat(dir.resolve("leader-epoch-checkpoint.tmp")).doesNotExist();
        assertThat(SegmentFiles.indexFile(dir, 12345)).doesNotExist();
    }

    @Test
    void idempotentProducerStateIsRebuiltFromTheLogOnRestart() throws Exception {
        PartitionLog log = start();
        log.appendAsLeader(TestBatches.idempotent(5L, (short) 1, 0, 2), 4, TestBatches.CREATE_TIME_MS);
        log.appendAsLeader(TestBatches.idempotent(5L, (short) 1, 2, 2), 4, TestBatches.CREATE_TIME_MS);

        PartitionLog reopened = crashAndRestart(dir -> {});
        AppendResult retry =
                reopened.appendAsLeader(TestBatches.idempotent(5L, (short) 1, 0, 2), 4, TestBatches.CREATE_TIME_MS);
        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.baseOffset()).isZero();
        assertThat(reopened.appendAsLeader(TestBatches.idempotent(5L, (short) 1, 4, 1), 4, TestBatches.CREATE_TIME_MS)
                        .baseOffset())
                .isEqualTo(4);
    }

    @Test
    void leaderEpochsLostWithAnUnsyncedCheckpointAreRebuiltFromTheBatchesOnRecovery() throws Exception {
        PartitionLog log = start();
        appendBatches(log, 10); // epoch 4 from offset 0
        for (int i = 0; i < 5; i++) {
            log.appendAsLeader(TestBatches.batchOfSize("w" + i, 2, 30), 7, TestBatches.CREATE_TIME_MS);
        }
        List<String> before = readAll(log);

        // A power loss takes what was not fsynced: the epoch checkpoint (fsynced only with the log) and, here, the
        // recovery point, so the whole log is recovered.
        PartitionLog recovered = crashAndRestart(dir -> {
            java.nio.file.Files.deleteIfExists(dir.resolve("leader-epoch-checkpoint"));
            java.nio.file.Files.deleteIfExists(root.resolve("recovery-point-offset-checkpoint"));
        });

        assertThat(readAll(recovered)).isEqualTo(before);
        assertThat(recovered.latestLeaderEpoch()).isEqualTo(7);
        assertThat(recovered.leaderEpochEntries())
                .extracting(e -> e.epoch() + "@" + e.startOffset())
                .containsExactly("4@0", "7@20");
        assertThat(Files.exists(recovered.dir().resolve("leader-epoch-checkpoint")))
                .isTrue();
    }
}
