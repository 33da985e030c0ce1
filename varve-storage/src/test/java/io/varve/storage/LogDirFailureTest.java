package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.fs.DurableFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** I/O failures: one partition's never stops the others, a failing dir goes offline, and I/O errors are no damage. */
class LogDirFailureTest {

    @TempDir
    Path root;

    private LogManager manager;

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    private static Map<TopicPartition, LogManager.LogSpec> specs(String topic, int partitions, Uuid id) {
        Map<TopicPartition, LogManager.LogSpec> specs = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            specs.put(new TopicPartition(topic, p), new LogManager.LogSpec(id, LogConfig.defaults()));
        }
        return specs;
    }

    @Test
    void aLogDirThatFailsGoesOfflineWhileThePartitionsOfTheOtherDirAreCreatedAndARetryPlacesTheRest() throws Exception {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        manager = new LogManager(List.of(a, b), LogConfig.defaults());
        List<Path> failedDirs = new ArrayList<>();
        manager.onLogDirFailure(failedDirs::add);
        PartitionLog before =
                manager.getOrCreateLog(new TopicPartition("old", 0), Uuid.randomUuid(), LogConfig.defaults());
        Path oldDir = before.dir().getParent();
        // the dir breaks under the node: it is no longer a directory
        DurableFiles.deleteRecursively(a);
        Files.writeString(a, "not a directory");
        Uuid id = Uuid.randomUuid();

        Map<TopicPartition, KafkaStorageException> failed = manager.getOrCreateLogs(specs("t", 4, id));

        assertThat(failed).isNotEmpty().hasSizeLessThan(4);
        assertThat(manager.offlineLogDirs()).containsExactly(a.toAbsolutePath().normalize());
        assertThat(failedDirs).containsExactly(a.toAbsolutePath().normalize());
        assertThat(manager.isOnline(b)).isTrue();
        for (int p = 0; p < 4; p++) {
            TopicPartition tp = new TopicPartition("t", p);
            assertThat(manager.openLogIfPresent(tp).isPresent()).isNotEqualTo(failed.containsKey(tp));
        }
        // a retry places the failed partitions in the dir that still works
        Map<TopicPartition, LogManager.LogSpec> retry = new HashMap<>();
        failed.keySet().forEach(tp -> retry.put(tp, new LogManager.LogSpec(id, LogConfig.defaults())));
        assertThat(manager.getOrCreateLogs(retry)).isEmpty();
        for (int p = 0; p < 4; p++) {
            assertThat(manager.openLogIfPresent(new TopicPartition("t", p))
                            .orElseThrow()
                            .dir()
                            .getParent())
                    .isEqualTo(b.toAbsolutePath().normalize());
        }
        if (oldDir.equals(a.toAbsolutePath().normalize())) {
            // a log that was in the failed dir answers KAFKA_STORAGE_ERROR
            assertThatThrownBy(() -> before.appendAsLeader(TestBatches.batch("x", 1), 0, TestBatches.CREATE_TIME_MS))
                    .isInstanceOf(KafkaStorageException.class);
        }
    }

    @Test
    void aProducerSnapshotThatCannotBeReadIsNeverDeletedAndItsLogLoadsOnceTheFileIsFixed() throws Exception {
        Path dir = root.resolve("logs");
        manager = new LogManager(List.of(dir), LogConfig.defaults());
        TopicPartition tp = new TopicPartition("s", 0);
        PartitionLog log = manager.getOrCreateLog(tp, Uuid.randomUuid(), LogConfig.defaults());
        log.appendAsLeader(TestBatches.batch("v", 3), 0, TestBatches.CREATE_TIME_MS);
        Path partitionDir = log.dir();
        manager.close();
        manager = null;
        // A snapshot that cannot be read (here: a directory where its file should be, an EISDIR) says nothing about
        // its content; the loader used to delete any snapshot it could not read.
        Path unreadable = partitionDir.resolve("00000000000000000999.snapshot");
        Files.createDirectory(unreadable);
        List<String> filesBefore = LogTestSupport.segmentFiles(partitionDir).stream()
                .map(p -> p.getFileName().toString())
                .toList();

        manager = new LogManager(List.of(dir), LogConfig.defaults());
        assertThatThrownBy(() -> manager.getLog(tp)).isInstanceOf(KafkaStorageException.class);
        assertThat(Files.isDirectory(unreadable))
                .as("the unreadable snapshot is still there")
                .isTrue();
        assertThat(LogTestSupport.segmentFiles(partitionDir).stream()
                        .map(p -> p.getFileName().toString())
                        .toList())
                .containsAll(filesBefore);
        // an I/O error (not a lack of descriptors) is a failing disk, as Kafka treats it: the dir is offline until a
        // restart; once the file is fixed (here: removed, as an operator would) the log loads with all its records
        assertThat(manager.offlineLogDirs())
                .containsExactly(dir.toAbsolutePath().normalize());
        manager.close();
        Files.delete(unreadable);
        manager = new LogManager(List.of(dir), LogConfig.defaults());
        assertThat(LogTestSupport.readAll(manager.getLog(tp).orElseThrow())).hasSize(3);
    }
}
