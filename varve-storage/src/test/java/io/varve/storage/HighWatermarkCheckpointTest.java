package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.checkpoint.OffsetCheckpointFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The high watermark is checkpointed per log dir in Kafka's {@code replication-offset-checkpoint} and a restarted
 * log starts at the checkpointed value (clamped to the log), never at its end: a follower must not expose records
 * its leader may never have committed.
 */
class HighWatermarkCheckpointTest {

    private static final TopicPartition TP = new TopicPartition("hw", 1);
    private static final long NOW_MS = 1_800_000_000_000L;

    @TempDir
    Path root;

    private final Uuid topicId = Uuid.randomUuid();
    private LogManager manager;

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    private PartitionLog open() {
        manager = new LogManager(
                List.of(root),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks(),
                () -> NOW_MS);
        return manager.getOrCreateLog(TP, topicId, LogConfig.defaults());
    }

    private Path checkpointFile() {
        return root.resolve(OffsetCheckpointFile.HIGH_WATERMARK_FILE);
    }

    private static void appendBatches(PartitionLog log, int batches) {
        for (int i = 0; i < batches; i++) {
            log.appendAsFollower(TestBatches.asReplicated(TestBatches.batch("b" + i, 2), log.logEndOffset(), 1));
        }
    }

    @Test
    void aCleanShutdownWritesTheHighWatermarksInKafkasCheckpointFormatAndTheLogStartsThere() throws Exception {
        PartitionLog log = open();
        appendBatches(log, 5);
        log.updateHighWatermark(6);
        manager.close();

        assertThat(Files.readString(checkpointFile())).isEqualTo("0\n1\nhw 1 6\n");
        PartitionLog reopened = open();
        assertThat(reopened.logEndOffset()).isEqualTo(10);
        assertThat(reopened.highWatermark()).isEqualTo(6);
    }

    @Test
    void afterACrashTheLogStartsAtTheLastCheckpointedHighWatermarkNotAtItsEnd() throws Exception {
        PartitionLog log = open();
        appendBatches(log, 3);
        log.updateHighWatermark(4);
        manager.checkpointHighWatermarks();
        String stale = Files.readString(checkpointFile());
        appendBatches(log, 3);
        log.updateHighWatermark(10);
        manager.close();
        // a crash before the next periodic checkpoint: the file still says 4
        Files.writeString(checkpointFile(), stale);
        LogTestSupport.forgetCleanShutdown(List.of(root));

        PartitionLog reopened = open();
        assertThat(reopened.logEndOffset()).isEqualTo(12);
        assertThat(reopened.highWatermark()).isEqualTo(4);
        assertThat(reopened.lastStableOffset()).isEqualTo(4);
    }

    @Test
    void withoutACheckpointTheHighWatermarkStartsAtTheLogStartOffset() throws Exception {
        PartitionLog log = open();
        appendBatches(log, 3);
        log.updateHighWatermark(6);
        manager.close();
        Files.delete(checkpointFile());

        assertThat(open().highWatermark()).isZero();
    }

    @Test
    void aCheckpointedHighWatermarkPastTheRecoveredLogEndIsClampedToIt() throws Exception {
        PartitionLog log = open();
        appendBatches(log, 3);
        log.updateHighWatermark(6);
        log.truncateTo(2);
        manager.close();
        Files.writeString(checkpointFile(), "0\n1\nhw 1 6\n");

        PartitionLog reopened = open();
        assertThat(reopened.logEndOffset()).isEqualTo(2);
        assertThat(reopened.highWatermark()).isEqualTo(2);
    }

    @Test
    void theHighWatermarkNeverMovesBackButThroughATruncation() {
        PartitionLog log = open();
        appendBatches(log, 3);
        log.updateHighWatermark(4);
        log.updateHighWatermark(2);
        assertThat(log.highWatermark()).isEqualTo(4);
        log.updateHighWatermark(100);
        assertThat(log.highWatermark()).as("clamped to the log end").isEqualTo(6);

        log.truncateTo(4);
        assertThat(log.highWatermark()).isEqualTo(4);
    }

    @Test
    void aLogNotOpenedYetKeepsItsCheckpointedHighWatermark() throws Exception {
        PartitionLog log = open();
        appendBatches(log, 2);
        log.updateHighWatermark(2);
        manager.close();
        manager = new LogManager(
                List.of(root),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks().withDeferOpeningCleanLogs(true),
                () -> NOW_MS);
        assertThat(manager.isDeferred(TP)).isTrue();

        manager.checkpointHighWatermarks();
        assertThat(Files.readString(checkpointFile())).isEqualTo("0\n1\nhw 1 2\n");
        assertThat(manager.getLog(TP).orElseThrow().highWatermark()).isEqualTo(2);
    }

    @Test
    void theBackgroundTasksCheckpointHighWatermarksEveryInterval() {
        manager = new LogManager(
                List.of(root),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withHighWatermarkCheckpointIntervalMs(20),
                System::currentTimeMillis);
        PartitionLog log = manager.getOrCreateLog(TP, topicId, LogConfig.defaults());
        appendBatches(log, 2);
        log.updateHighWatermark(3);

        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                        Files.readString(checkpointFile()))
                .isEqualTo("0\n1\nhw 1 3\n"));
    }
}
