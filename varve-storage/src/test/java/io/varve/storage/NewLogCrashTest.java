package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.checkpoint.PartitionMetadataFile;
import io.varve.storage.fs.DurableFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * New logs are created without an fsync of their directory, partition.metadata or segment files (their first flush
 * makes them durable). A crash before that flush may leave any part of a new log's files missing or empty; the
 * metadata log still names the partition, and the reconciliation after the restart asks for the same logs again.
 * Every such remnant must come back as an empty, writable log with its topic id, never fail the start-up.
 */
class NewLogCrashTest {

    private static final String TOPIC = "fresh";

    @TempDir
    Path root;

    private LogManager manager;
    private final Uuid topicId = Uuid.randomUuid();

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    private LogManager start(Path dir) {
        manager = new LogManager(
                List.of(dir),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks(),
                System::currentTimeMillis);
        return manager;
    }

    /** What a power loss before the first flush can leave of a new log's directory. */
    private enum Remnant {
        EVERYTHING(dir -> {}),
        NOTHING(NewLogCrashTest::deleteTree),
        EMPTY_DIRECTORY(dir -> deleteChildren(dir, f -> true)),
        EMPTY_PARTITION_METADATA(dir -> {
            deleteChildren(dir, f -> !f.equals(PartitionMetadataFile.FILE_NAME));
            Files.write(dir.resolve(PartitionMetadataFile.FILE_NAME), new byte[0]);
        }),
        PARTITION_METADATA_ONLY_AS_TEMP_FILE(dir -> {
            Files.move(
                    dir.resolve(PartitionMetadataFile.FILE_NAME),
                    dir.resolve(PartitionMetadataFile.FILE_NAME + DurableFiles.TEMP_SUFFIX));
            deleteChildren(dir, f -> !f.startsWith(PartitionMetadataFile.FILE_NAME));
        }),
        SEGMENT_WITHOUT_INDEXES(dir -> deleteChildren(dir, f -> f.endsWith("index"))),
        INDEXES_EMPTIED(dir -> {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(f -> f.getFileName().toString().endsWith("index"))
                        .toList()) {
                    Files.write(f, new byte[0]);
                }
            }
        }),
        SEGMENTS_WITHOUT_PARTITION_METADATA(dir -> deleteChildren(dir, f -> f.equals(PartitionMetadataFile.FILE_NAME)));

        final Damage damage;

        Remnant(Damage damage) {
            this.damage = damage;
        }
    }

    @FunctionalInterface
    private interface Damage {
        void apply(Path partitionDir) throws IOException;
    }

    private static TopicPartition tp(Remnant remnant) {
        return new TopicPartition(TOPIC, remnant.ordinal());
    }

    private Map<TopicPartition, LogManager.LogSpec> specs() {
        Map<TopicPartition, LogManager.LogSpec> specs = new LinkedHashMap<>();
        for (Remnant r : Remnant.values()) {
            specs.put(tp(r), new LogManager.LogSpec(topicId, LogConfig.defaults()));
        }
        return specs;
    }

    @Test
    void aNewLogCutShortByACrashBeforeItsFirstFlushIsRecreatedEmptyAndWritable() throws Exception {
        Path live = root.resolve("live");
        start(live);
        assertThat(manager.getOrCreateLogs(specs())).isEmpty();
        for (Remnant r : Remnant.values()) {
            assertThat(live.resolve(TOPIC + "-" + r.ordinal())).isDirectory();
        }
        // A crash: the files as they are now, without the clean-shutdown marker, then what a power loss may take.
        Path crashed = root.resolve("crashed");
        copyTree(live, crashed);
        manager.close();
        manager = null;
        assertThat(crashed.resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
        for (Remnant r : Remnant.values()) {
            r.damage.apply(crashed.resolve(TOPIC + "-" + r.ordinal()));
        }

        start(crashed);
        // Reconciliation with the metadata log, which still names every partition.
        assertThat(manager.getOrCreateLogs(specs()))
                .as("no log fails to open or be created")
                .isEmpty();
        long nowMs = System.currentTimeMillis();
        for (Remnant r : Remnant.values()) {
            PartitionLog log = manager.getLog(tp(r)).orElseThrow();
            assertThat(log.logEndOffset()).as("end of the log left as %s", r).isZero();
            assertThat(log.topicId()).as("topic id of the log left as %s", r).isEqualTo(topicId);
            log.appendAsLeader(TestBatches.batchAt(r.name(), 1, 10, nowMs, false), 0, nowMs);
            assertThat(log.logEndOffset()).as("append to the log left as %s", r).isEqualTo(1);
        }
        manager.close();

        start(crashed);
        for (Remnant r : Remnant.values()) {
            PartitionLog log = manager.getLog(tp(r)).orElseThrow();
            assertThat(log.topicId())
                    .as("topic id after a clean restart, %s", r)
                    .isEqualTo(topicId);
            assertThat(TestBatches.offsetsAndValues(
                            log.read(0, 1 << 20, Long.MAX_VALUE, true).records()))
                    .as("the record written after the crash, %s", r)
                    .hasSize(1);
        }
    }

    @Test
    void theFirstFlushMakesANewLogsFilesDurableSoTheyAreNotRecreated() throws Exception {
        Path dir = root.resolve("data");
        start(dir);
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        manager.getOrCreateLogs(Map.of(tp, new LogManager.LogSpec(topicId, LogConfig.defaults())));
        PartitionLog log = manager.getLog(tp).orElseThrow();
        long nowMs = System.currentTimeMillis();
        log.appendAsLeader(TestBatches.batchAt("kept", 3, 10, nowMs, false), 0, nowMs);
        log.flush();
        Path crashed = root.resolve("crashed");
        copyTree(dir, crashed);
        manager.close();
        manager = null;

        start(crashed);
        PartitionLog recovered = manager.getLog(tp).orElseThrow();
        assertThat(recovered.topicId()).isEqualTo(topicId);
        assertThat(recovered.logEndOffset())
                .as("the flushed records survive the crash")
                .isEqualTo(3);
    }

    private static void deleteChildren(Path dir, Predicate<String> byName) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f :
                    files.filter(f -> byName.test(f.getFileName().toString())).toList()) {
                Files.delete(f);
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : paths.toList()) {
                String name = source.getFileName().toString();
                if (name.endsWith(".lock")) {
                    continue; // the live manager's lock file; the crashed copy is opened by a new manager
                }
                Files.copy(source, to.resolve(from.relativize(source).toString()));
            }
        }
    }
}
