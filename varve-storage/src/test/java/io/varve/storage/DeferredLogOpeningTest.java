package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A clean start lists logs and opens each on first use or in the background (see {@link DeferredLogs}). */
class DeferredLogOpeningTest {

    private static final int PARTITIONS = 20;
    /** Enough logs that the background pass is still opening some when a test closes or deletes. */
    private static final int MANY_PARTITIONS = 200;

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

    private LogManager start(boolean deferOpening) {
        return start(root.resolve("data"), deferOpening);
    }

    private LogManager start(Path dir, boolean deferOpening) {
        manager = new LogManager(
                List.of(dir),
                LogConfig.defaults(),
                LogManagerConfig.defaults().withoutBackgroundTasks().withDeferOpeningCleanLogs(deferOpening),
                System::currentTimeMillis);
        return manager;
    }

    private static TopicPartition tp(int partition) {
        return new TopicPartition("t", partition);
    }

    /** Partition p holds p + 1 records, and its log start offset was moved to p / 2. */
    private void writeLogsAndStopCleanly() {
        writeLogsAndStopCleanly(PARTITIONS);
    }

    private void writeLogsAndStopCleanly(int partitions) {
        start(true);
        for (int p = 0; p < partitions; p++) {
            PartitionLog log = manager.getOrCreateLog(tp(p), topicId, LogConfig.defaults());
            long nowMs = System.currentTimeMillis();
            log.appendAsLeader(TestBatches.batchAt("p" + p, p + 1, 10, nowMs, false), 0, nowMs);
            log.updateHighWatermark(log.logEndOffset());
            log.deleteRecordsBefore(p / 2);
        }
        manager.close();
    }

    private void assertEveryLogIntact() {
        assertEveryLogIntact(PARTITIONS);
    }

    private void assertEveryLogIntact(int partitions) {
        for (int p = 0; p < partitions; p++) {
            PartitionLog log = manager.getLog(tp(p)).orElseThrow();
            assertThat(log.logEndOffset()).as("end of %s", tp(p)).isEqualTo(p + 1);
            assertThat(log.logStartOffset()).as("start of %s", tp(p)).isEqualTo(p / 2);
            assertThat(log.topicId()).isEqualTo(topicId);
        }
    }

    @Test
    void aCleanStartOpensNoLogUntilOneIsAskedFor() {
        writeLogsAndStopCleanly();
        start(true);
        assertThat(manager.deferredPartitions()).hasSize(PARTITIONS);
        assertThat(manager.openLogs()).isEmpty();

        PartitionLog log = manager.getLog(tp(7)).orElseThrow();
        assertThat(log.logEndOffset()).isEqualTo(8);
        assertThat(manager.openLogs()).containsExactly(log);
        assertThat(manager.isDeferred(tp(7))).isFalse();
        assertThat(manager.deferredPartitions()).hasSize(PARTITIONS - 1);
        assertThat(manager.getLog(tp(PARTITIONS))).isEmpty();
    }

    @Test
    void theBackgroundPassOpensEveryDeferredLog() {
        writeLogsAndStopCleanly();
        start(true);
        manager.openDeferredLogsInBackground();
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> manager.deferredPartitions()
                .isEmpty());
        assertThat(manager.openLogs()).hasSize(PARTITIONS);
        assertEveryLogIntact();
    }

    @Test
    void concurrentFirstUsesOfALogGetTheSameOpenLog() throws Exception {
        writeLogsAndStopCleanly();
        start(true);
        manager.openDeferredLogsInBackground();
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Callable<PartitionLog>> gets = new ArrayList<>();
            for (int i = 0; i < 4 * PARTITIONS; i++) {
                int p = i % PARTITIONS;
                gets.add(() -> manager.getLog(tp(p)).orElseThrow());
            }
            Set<PartitionLog> distinct = new HashSet<>();
            for (Future<PartitionLog> f : threads.invokeAll(gets)) {
                distinct.add(f.get());
            }
            assertThat(distinct).hasSize(PARTITIONS);
            assertThat(distinct).containsExactlyInAnyOrderElementsOf(manager.allLogs());
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void checkpointsWrittenWhileLogsAreDeferredKeepTheirOffsets() {
        writeLogsAndStopCleanly();
        start(true);
        manager.getLog(tp(3)).orElseThrow().deleteRecordsBefore(4);
        manager.checkpoint();
        manager.close();

        // Opened eagerly this time: the log start offsets can only come from the checkpoint written above.
        start(false);
        assertThat(manager.deferredPartitions()).isEmpty();
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(manager.getLog(tp(p)).orElseThrow().logStartOffset()).isEqualTo(p == 3 ? 4 : p / 2);
        }
    }

    @Test
    void aCrashWhileLogsAreDeferredRecoversThemFromTheCarriedRecoveryPoints() throws Exception {
        writeLogsAndStopCleanly();
        start(true);
        manager.getLog(tp(3)).orElseThrow();
        manager.checkpoint();
        assertThat(root.resolve("data").resolve(LogManager.CLEAN_SHUTDOWN_FILE)).doesNotExist();
        // What a crash leaves behind: the files as they are now, without what a clean close writes.
        Path crashed = root.resolve("crashed");
        copyTree(root.resolve("data"), crashed);
        manager.close();

        start(crashed, true);
        assertThat(manager.deferredPartitions())
                .as("an unclean dir is recovered before start-up ends")
                .isEmpty();
        assertEveryLogIntact();
    }

    @Test
    void deletingADeferredLogRemovesItsDirectoryWithoutOpeningIt() throws Exception {
        writeLogsAndStopCleanly();
        start(true);
        manager.deleteLog(tp(5));
        assertThat(manager.isDeferred(tp(5))).isFalse();
        assertThat(manager.getLog(tp(5))).isEmpty();
        assertThat(root.resolve("data").resolve("t-5")).doesNotExist();
        manager.close();

        start(true);
        assertThat(manager.deferredPartitions()).hasSize(PARTITIONS - 1).doesNotContain(tp(5));
    }

    @Test
    void aDeferredLogGetsTheWantedConfigWhenItOpens() {
        writeLogsAndStopCleanly();
        start(true);
        LogConfig compacted = LogConfig.defaults().withCleanupPolicy(Set.of(CleanupPolicy.COMPACT));
        manager.getOrCreateLogs(Map.of(tp(2), new LogManager.LogSpec(topicId, compacted)));
        assertThat(manager.isDeferred(tp(2)))
                .as("reconciliation alone opens no log")
                .isTrue();
        assertThat(manager.getLog(tp(2)).orElseThrow().config()).isEqualTo(compacted);
    }

    @Test
    void aDeferredLogOfAnotherTopicIdIsReplacedByAnEmptyLogWhenItOpens() {
        writeLogsAndStopCleanly();
        start(true);
        Uuid recreated = Uuid.randomUuid();
        manager.getOrCreateLogs(Map.of(tp(4), new LogManager.LogSpec(recreated, LogConfig.defaults())));
        PartitionLog log = manager.getLog(tp(4)).orElseThrow();
        assertThat(log.topicId()).isEqualTo(recreated);
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void aTieredLogIsOpenedAtReconciliation() {
        writeLogsAndStopCleanly();
        start(true);
        LogConfig tiered = LogConfig.defaults().withRemoteStorageEnable(true);
        manager.getOrCreateLogs(Map.of(tp(6), new LogManager.LogSpec(topicId, tiered)));
        assertThat(manager.isDeferred(tp(6))).isFalse();
        assertThat(manager.openLogs()).extracting(PartitionLog::topicPartition).containsExactly(tp(6));
    }

    @Test
    void closingWithDeferredLogsLeavesTheDirCleanAndEveryLogIntact() throws Exception {
        writeLogsAndStopCleanly();
        start(true);
        manager.getLog(tp(1)).orElseThrow();
        manager.close();
        assertThat(root.resolve("data").resolve(LogManager.CLEAN_SHUTDOWN_FILE)).exists();

        start(false);
        assertEveryLogIntact();
    }

    @Test
    void closingWhileTheBackgroundPassIsOpeningLogsEndsAndLeavesEveryLogIntact() {
        writeLogsAndStopCleanly(MANY_PARTITIONS);
        for (int attempt = 0; attempt < 3; attempt++) {
            start(true);
            manager.openDeferredLogsInBackground();
            LogManager closing = manager;
            assertTimeoutPreemptively(Duration.ofSeconds(30), closing::close);
            start(false);
            assertEveryLogIntact(MANY_PARTITIONS);
            manager.close();
        }
    }

    @Test
    void closingTwiceWithDeferredLogsReturns() {
        writeLogsAndStopCleanly();
        start(true);
        LogManager closing = manager;
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> {
            closing.close();
            closing.close();
        });
    }

    @Test
    void deletingALogWhileTheBackgroundPassOpensItRemovesIt() throws Exception {
        writeLogsAndStopCleanly(MANY_PARTITIONS);
        start(true);
        manager.openDeferredLogsInBackground();
        for (int p = 0; p < MANY_PARTITIONS; p += 2) {
            manager.deleteLog(tp(p));
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> manager.deferredPartitions()
                .isEmpty());
        for (int p = 0; p < MANY_PARTITIONS; p++) {
            assertThat(manager.getLog(tp(p)).isPresent()).as("%s", tp(p)).isEqualTo(p % 2 == 1);
            assertThat(root.resolve("data").resolve("t-" + p).toFile().exists())
                    .as("dir of %s", tp(p))
                    .isEqualTo(p % 2 == 1);
        }
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path source : paths.toList()) {
                Files.copy(source, to.resolve(from.relativize(source).toString()));
            }
        }
    }
}
