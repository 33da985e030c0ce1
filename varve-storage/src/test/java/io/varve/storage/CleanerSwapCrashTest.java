package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.KeyedBatches.Rec;
import io.varve.storage.segment.SegmentSwap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cleaning pass that dies at any durable step of its segment swap (the failure stands in for a crash:
 * the log goes offline, the broker stops without a clean shutdown) leaves a log that loads as wholly
 * before or wholly after the swap, never a mix, with no leftover files; and the next pass gets to the
 * same cleaned log.
 */
class CleanerSwapCrashTest {

    private static final long NOW_MS = 1_700_000_000_000L;
    private static final TopicPartition TP = new TopicPartition("crashy", 0);
    private static final LogConfig CONFIG = LogConfig.builder()
            .cleanupPolicy(Set.of(CleanupPolicy.COMPACT))
            .segmentBytes(200)
            .build();
    private static final String COMMIT_STEP = "write manifest";

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    private LogManager manager;

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    private PartitionLog open(Path dir) {
        manager = new LogManager(
                List.of(dir), CONFIG, LogManagerConfig.defaults().withoutBackgroundTasks(), () -> NOW_MS);
        return manager.getOrCreateLog(TP, Uuid.ZERO_UUID, CONFIG);
    }

    /** Four rolled segments (two of them merge when cleaned: segment.bytes is small) and an active one. */
    private PartitionLog logToClean(Path dir) {
        PartitionLog log = open(dir);
        String[][] segments = {{"a=1", "b=1"}, {"a=2", "c=1"}, {"b=2", "c="}, {"d=1", "a=3"}, {"e=1"}};
        for (String[] records : segments) {
            log.appendAsLeader(KeyedBatches.batch(NOW_MS, records), 0, NOW_MS);
            log.updateHighWatermark(log.logEndOffset());
            LogTestAccess.roll(log);
        }
        return log;
    }

    @Test
    void aCrashAtAnyStepOfTheSwapLeavesTheLogWhollyBeforeOrWhollyAfterIt() throws Exception {
        PartitionLog dryRun = logToClean(root.resolve("dry-run"));
        List<Rec> before = KeyedBatches.readAll(dryRun);
        List<Long> segmentsBefore = dryRun.segmentBaseOffsets();
        List<String> steps = new ArrayList<>();
        dryRun.injectStepFaults(steps::add);
        manager.runCleaner(NOW_MS).orElseThrow();
        List<Rec> after = KeyedBatches.readAll(dryRun);
        List<Long> segmentsAfter = dryRun.segmentBaseOffsets();
        manager.close();
        assertThat(after).isNotEqualTo(before);
        assertThat(steps).contains(COMMIT_STEP).hasSizeGreaterThan(5);

        for (int i = 0; i < steps.size(); i++) {
            String step = steps.get(i);
            boolean committed = i > steps.indexOf(COMMIT_STEP);
            Path dir = root.resolve("crash-" + i);
            PartitionLog log = logToClean(dir);
            log.injectStepFaults(reached -> {
                if (reached.equals(step)) {
                    throw new IOException("crash before " + step);
                }
            });

            assertThat(manager.runCleaner(NOW_MS))
                    .as("the pass dying before %s", step)
                    .isEmpty();
            assertThat(log.isOffline()).isTrue();
            manager.close(); // an offline log leaves its dir without the clean-shutdown marker: recovery at next start

            PartitionLog reloaded = open(dir);
            // the dir failed, so its high watermarks were not checkpointed: the broker moves the only in-sync
            // replica's to its log end, as here, and cleaning stops below it
            reloaded.updateHighWatermark(reloaded.logEndOffset());
            assertThat(KeyedBatches.readAll(reloaded))
                    .as("after a crash before %s", step)
                    .isEqualTo(committed ? after : before);
            assertThat(reloaded.segmentBaseOffsets()).isEqualTo(committed ? segmentsAfter : segmentsBefore);
            try (Stream<Path> files = Files.list(reloaded.dir())) {
                assertThat(files.map(f -> f.getFileName().toString()))
                        .as("files after a crash before %s", step)
                        .noneMatch(name -> name.endsWith(".cleaned")
                                || name.endsWith(".deleted")
                                || name.equals(SegmentSwap.MANIFEST_FILE));
            }
            manager.cleaner().clean(reloaded, NOW_MS);
            assertThat(KeyedBatches.readAll(reloaded))
                    .as("the next pass after a crash before %s", step)
                    .isEqualTo(after);
            manager.close();
            manager = null;
        }
    }
}
