package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InconsistentTopicIdException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogManagerTest {

    @TempDir
    Path root;

    private LogManager manager;

    private LogManager start(Path... dirs) {
        manager = new LogManager(List.of(dirs), LogConfig.defaults());
        return manager;
    }

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    private static List<String> childNames(Path dir) throws Exception {
        try (Stream<Path> children = Files.list(dir)) {
            return children.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void createsMissingLogDirsAndPlacesEachNewLogInTheDirWithFewestPartitions() throws Exception {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        start(a, b);
        for (int p = 0; p < 4; p++) {
            manager.getOrCreateLog(new TopicPartition("t", p), Uuid.randomUuid(), LogConfig.defaults());
        }
        assertThat(childNames(a)).filteredOn(n -> n.startsWith("t-")).hasSize(2);
        assertThat(childNames(b)).filteredOn(n -> n.startsWith("t-")).hasSize(2);
    }

    @Test
    void reloadsEveryPartitionOfEveryDirAfterRestart() {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        start(a, b);
        for (int p = 0; p < 3; p++) {
            PartitionLog log = manager.getOrCreateLog(
                    new TopicPartition("my-topic.x", p), Uuid.randomUuid(), LogConfig.defaults());
            log.appendAsLeader(TestBatches.batch("p" + p, p + 1), 0, TestBatches.CREATE_TIME_MS);
        }
        manager.close();

        start(a, b);
        assertThat(manager.allLogs()).hasSize(3);
        for (int p = 0; p < 3; p++) {
            assertThat(manager.getLog(new TopicPartition("my-topic.x", p))
                            .orElseThrow()
                            .logEndOffset())
                    .isEqualTo(p + 1);
        }
    }

    @Test
    void getOrCreateLogReturnsTheSameLogAndAppliesTheNewConfig() {
        start(root);
        TopicPartition tp = new TopicPartition("t", 0);
        Uuid topicId = Uuid.randomUuid();
        PartitionLog first = manager.getOrCreateLog(tp, topicId, LogConfig.defaults());
        LogConfig changed = LogConfig.defaults().withSegmentBytes(4096);
        PartitionLog second = manager.getOrCreateLog(tp, topicId, changed);

        assertThat(second).isSameAs(first);
        assertThat(second.config()).isEqualTo(changed);
        assertThatThrownBy(() -> manager.getOrCreateLog(tp, Uuid.randomUuid(), changed))
                .isInstanceOf(InconsistentTopicIdException.class);
    }

    @Test
    void deleteLogClosesAndRemovesThePartitionDirectory() throws Exception {
        start(root);
        TopicPartition tp = new TopicPartition("t", 1);
        PartitionLog log = manager.getOrCreateLog(tp, Uuid.randomUuid(), LogConfig.defaults());
        log.appendAsLeader(TestBatches.batch("a", 1), 0, TestBatches.CREATE_TIME_MS);

        manager.deleteLog(tp);
        assertThat(manager.getLog(tp)).isEmpty();
        assertThat(childNames(root)).noneMatch(n -> n.startsWith("t-1"));
        assertThatThrownBy(() -> log.read(0, 10, 10, true)).isInstanceOf(KafkaStorageException.class);
        manager.deleteLog(tp); // deleting again is harmless

        PartitionLog recreated = manager.getOrCreateLog(tp, Uuid.randomUuid(), LogConfig.defaults());
        assertThat(recreated.logEndOffset()).isZero();
    }

    @Test
    void startUpDeletesLeftoverDeleteDirsAndIgnoresForeignDirs() throws Exception {
        Files.createDirectories(root.resolve("t-0.0123abcd-delete"));
        Files.writeString(root.resolve("t-0.0123abcd-delete/00000000000000000000.log"), "x");
        Files.createDirectories(root.resolve("lost+found"));
        Files.createDirectories(root.resolve("__cluster_metadata-0"));
        Files.writeString(root.resolve("notes-1"), "a file, not a partition dir");

        start(root);
        assertThat(childNames(root))
                .doesNotContain("t-0.0123abcd-delete")
                .contains("lost+found", "__cluster_metadata-0");
        assertThat(manager.allLogs()).isEmpty();
    }

    @Test
    void cleanShutdownMarkerIsWrittenOnCloseAndRemovedOnStart() {
        start(root);
        assertThat(root.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
        manager.close();
        assertThat(root.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
        start(root);
        assertThat(root.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
    }

    @Test
    void aLogDirCannotBeOpenedTwiceAtOnce() {
        start(root);
        assertThatThrownBy(() -> new LogManager(List.of(root), LogConfig.defaults()))
                .isInstanceOf(KafkaStorageException.class)
                .hasMessageContaining("in use");
    }

    @Test
    void partitionDirNamesSplitAtTheLastDash() {
        assertThat(LogDirs.parsePartitionDirName("my-topic-12")).contains(new TopicPartition("my-topic", 12));
        assertThat(LogDirs.parsePartitionDirName("topic")).isEmpty();
        assertThat(LogDirs.parsePartitionDirName("topic-")).isEmpty();
        assertThat(LogDirs.parsePartitionDirName("-3")).isEmpty();
        assertThat(LogDirs.parsePartitionDirName("topic-x1")).isEmpty();
    }

    @Test
    void backgroundTasksRunRetentionOnTheirScheduleAndStopAtClose() {
        LogConfig config = LogConfig.defaults().withRetentionMs(1_000).withFileDeleteDelayMs(0);
        LogManagerConfig fast = new LogManagerConfig(20, 20, 20, 86_400_000L, 600_000L, true);
        manager = new LogManager(List.of(root), config, fast, System::currentTimeMillis);
        PartitionLog log = manager.getOrCreateLog(new TopicPartition("t", 0), Uuid.randomUuid(), config);
        long oldMs = System.currentTimeMillis() - 10_000;
        log.appendAsLeader(TestBatches.batchAt("old", 1, 0, oldMs, false), 0, System.currentTimeMillis());
        log.updateHighWatermark(log.logEndOffset());

        Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(log.logStartOffset()).isEqualTo(1);
            assertThat(childNames(log.dir())).noneMatch(name -> name.endsWith(".deleted"));
        });
        manager.close();
        assertThat(Thread.getAllStackTraces().keySet())
                .noneMatch(t -> t.getName().startsWith("varve-log-manager"));
    }

    @Test
    void closeWritesTheOffsetCheckpointsOfEveryLogDirBeforeTheCleanShutdownMarker() throws Exception {
        start(root);
        PartitionLog log = manager.getOrCreateLog(new TopicPartition("t", 2), Uuid.randomUuid(), LogConfig.defaults());
        log.appendAsLeader(TestBatches.batch("a", 3), 0, TestBatches.CREATE_TIME_MS);
        manager.close();
        assertThat(Files.readString(root.resolve("recovery-point-offset-checkpoint")))
                .isEqualTo("0\n1\nt 2 3\n");
        assertThat(Files.readString(root.resolve("log-start-offset-checkpoint")))
                .isEqualTo("0\n1\nt 2 0\n");
        assertThat(root.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();
    }
}
