package io.varve.storage;

import static io.varve.storage.LogTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.storage.checkpoint.OffsetCheckpointFile;
import io.varve.storage.epoch.EpochEndOffset;
import io.varve.storage.producer.ProducerStateEntry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A follower's truncations: to an offset (a divergent suffix goes) and fully (the log starts afresh). */
class PartitionLogTruncationTest {

    private static final TopicPartition TP = new TopicPartition("diverged", 0);
    private static final long NOW_MS = 1_800_000_000_000L;
    private static final long PRODUCER = 42;
    private static final LogConfig SMALL_SEGMENTS =
            LogConfig.builder().segmentBytes(400).indexIntervalBytes(100).build();

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
                List.of(dir), SMALL_SEGMENTS, LogManagerConfig.defaults().withoutBackgroundTasks(), () -> NOW_MS);
        return manager.getOrCreateLog(TP, Uuid.ZERO_UUID, SMALL_SEGMENTS);
    }

    /**
     * Twelve follower batches of two records over several segments: epoch 1 for offsets [0, 8), 2 for [8, 16), 3 for
     * [16, 24); every third batch from the idempotent producer 42 (sequences counting up).
     */
    private PartitionLog replicatedLog(Path dir) {
        PartitionLog log = open(dir);
        int sequence = 0;
        for (int i = 0; i < 12; i++) {
            long base = 2L * i;
            int epoch = 1 + i / 4;
            ByteBuffer batch;
            if (i % 3 == 0) {
                batch = TestBatches.idempotent(PRODUCER, (short) 0, sequence, 2);
                sequence += 2;
            } else {
                batch = TestBatches.batchOfSize("r" + i, 2, 40);
            }
            log.appendAsFollower(TestBatches.asReplicated(batch, base, epoch));
        }
        log.updateHighWatermark(log.logEndOffset());
        assertThat(log.segmentCount()).isGreaterThan(3);
        return log;
    }

    @Test
    void truncateToDropsEveryRecordAtAndAboveTheOffsetAcrossSegments() {
        PartitionLog log = replicatedLog(root);
        List<String> before = readAll(log);

        assertThat(log.truncateTo(10)).isTrue();

        assertThat(log.logEndOffset()).isEqualTo(10);
        assertThat(readAll(log)).isEqualTo(before.subList(0, 10));
        assertThat(log.segmentBaseOffsets()).allMatch(base -> base <= 10);
        assertThat(log.leaderEpochEntries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 8));
        assertThat(log.highWatermark()).isEqualTo(10);
        assertThat(log.recoveryPoint()).isLessThanOrEqualTo(10);
        assertThat(log.endOffsetForEpoch(2)).contains(new EpochEndOffset(2, 10));
    }

    @Test
    void truncateToAnOffsetInsideABatchDropsTheWholeBatch() {
        PartitionLog log = replicatedLog(root);

        log.truncateTo(7);

        assertThat(log.logEndOffset()).isEqualTo(6);
        assertThat(readAll(log)).hasSize(6);
    }

    @Test
    void truncateToAtOrPastTheLogEndChangesNothing() {
        PartitionLog log = replicatedLog(root);
        List<Long> segments = log.segmentBaseOffsets();

        assertThat(log.truncateTo(24)).isFalse();
        assertThat(log.truncateTo(100)).isFalse();
        assertThat(log.logEndOffset()).isEqualTo(24);
        assertThat(log.segmentBaseOffsets()).isEqualTo(segments);
    }

    @Test
    void truncateToTheLogEndDropsALeaderEpochRecordedThereWithoutRecords() {
        // a broker that became leader at epoch 7 and lost the leadership before appending: the new leader reports a
        // divergence at this log's end, and the epoch must go, or the next fetch reports the same divergence again
        PartitionLog log = replicatedLog(root);
        log.assignLeaderEpochAtLogEnd(7);
        assertThat(log.latestLeaderEpoch()).isEqualTo(7);

        assertThat(log.truncateTo(log.logEndOffset())).isFalse();

        assertThat(log.latestLeaderEpoch()).isEqualTo(3);
        assertThat(log.logEndOffset()).isEqualTo(24);
        assertThat(log.leaderEpochEntries()).doesNotContain(new EpochEntry(7, 24));
    }

    @Test
    void afterATruncationARetryOfADroppedBatchIsAppendedAgainAndOneOfAKeptBatchIsADuplicate() {
        PartitionLog log = replicatedLog(root);
        log.truncateTo(12); // keeps the producer's batches at 0 (seq 0-1) and 6 (seq 2-3), drops the one at 12

        assertThat(log.producerStates().get(PRODUCER).lastSequence()).contains(3);
        AppendResult keptRetry = log.appendAsLeader(TestBatches.idempotent(PRODUCER, (short) 0, 2, 2), 4, NOW_MS);
        assertThat(keptRetry.duplicate()).isTrue();
        assertThat(keptRetry.baseOffset()).isEqualTo(6);
        AppendResult droppedRetry = log.appendAsLeader(TestBatches.idempotent(PRODUCER, (short) 0, 4, 2), 4, NOW_MS);
        assertThat(droppedRetry.duplicate()).isFalse();
        assertThat(droppedRetry.baseOffset()).isEqualTo(12);
    }

    @Test
    void truncatingAwayACommitMarkerReopensItsTransactionAndAnAbortsEntryGoesWithItsMarker() {
        PartitionLog log = open(root);
        log.appendAsFollower(TestBatches.concat(
                TestBatches.asReplicated(TestBatches.transactionalAt(10, (short) 0, 0, "t", 2, NOW_MS), 0, 1),
                TestBatches.asReplicated(TestBatches.marker(10, (short) 0, 0, false, NOW_MS), 2, 1),
                TestBatches.asReplicated(TestBatches.transactionalAt(11, (short) 0, 0, "u", 2, NOW_MS), 3, 1),
                TestBatches.asReplicated(TestBatches.marker(11, (short) 0, 0, true, NOW_MS), 5, 1)));
        log.updateHighWatermark(log.logEndOffset());
        assertThat(log.lastStableOffset()).isEqualTo(6);

        log.truncateTo(5);
        assertThat(log.lastStableOffset())
                .as("producer 11's transaction is open again")
                .isEqualTo(3);
        assertThat(log.abortedTransactions(0, 5)).hasSize(1);

        log.truncateTo(2);
        assertThat(log.abortedTransactions(0, 2)).isEmpty();
        assertThat(log.lastStableOffset()).isZero();
    }

    @Test
    void truncateFullyAndStartAtEmptiesTheLogAndStartsItAtTheOffset() throws Exception {
        PartitionLog log = replicatedLog(root);

        log.truncateFullyAndStartAt(100);

        assertThat(log.logStartOffset()).isEqualTo(100);
        assertThat(log.logEndOffset()).isEqualTo(100);
        assertThat(log.highWatermark()).isEqualTo(100);
        assertThat(log.segmentBaseOffsets()).containsExactly(100L);
        assertThat(log.leaderEpochEntries()).isEmpty();
        assertThat(log.producerStates()).isEmpty();
        log.appendAsFollower(TestBatches.asReplicated(TestBatches.batch("n", 2), 100, 7));
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root));

        PartitionLog reopened = open(root);
        assertThat(reopened.logStartOffset()).isEqualTo(100);
        assertThat(readAll(reopened)).containsExactly("100:n-0", "101:n-1");
        assertThat(reopened.leaderEpochEntries()).containsExactly(new EpochEntry(7, 100));
    }

    @Test
    void aFollowerStartedFromTheRemoteTierTakesItsLogStartFromThereDurablyAndOnlyDownwards() throws Exception {
        PartitionLog follower = open(root.resolve("follower"));
        follower.truncateFullyAndStartAt(24);

        follower.extendLogStartIntoRemote(30);
        assertThat(follower.logStartOffset()).as("never up").isEqualTo(24);
        follower.extendLogStartIntoRemote(0);
        assertThat(follower.logStartOffset()).isZero();
        assertThat(follower.localLogStartOffset()).isEqualTo(24);
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root.resolve("follower")));
        PartitionLog reopened = open(root.resolve("follower"));
        assertThat(reopened.localLogStartOffset()).isEqualTo(24);
        manager.close();
        PartitionLog notEmpty = replicatedLog(root.resolve("other"));
        assertThatThrownBy(() -> notEmpty.extendLogStartIntoRemote(0)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aTieredFollowerRestoresTheLeadersEpochsAndProducersAtItsLocalLogStart() throws Exception {
        PartitionLog leader = replicatedLog(root.resolve("leader"));
        List<EpochEntry> leaderEpochs = leader.leaderEpochEntries();
        Map<Long, ProducerStateEntry> leaderProducers = leader.producerStates();
        manager.close();

        PartitionLog follower = open(root.resolve("follower"));
        follower.truncateFullyAndStartAt(24);
        follower.restoreFollowerStateFromRemote(leaderEpochs, leaderProducers);

        assertThat(follower.leaderEpochEntries()).isEqualTo(leaderEpochs);
        assertThat(follower.endOffsetForEpoch(2)).contains(new EpochEndOffset(2, 16));
        assertThat(follower.endOffsetForEpoch(3)).contains(new EpochEndOffset(3, 24));
        assertThat(follower.appendAsLeader(TestBatches.idempotent(PRODUCER, (short) 0, 6, 2), 4, NOW_MS)
                        .duplicate())
                .as("a retry of the producer's last batch, which only remote storage holds")
                .isTrue();
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root.resolve("follower")));
        PartitionLog reopened = open(root.resolve("follower"));
        assertThat(reopened.leaderEpochEntries()).isEqualTo(leaderEpochs);
        assertThat(reopened.producerStates()).containsKey(PRODUCER);
        manager.close();
        PartitionLog notEmpty = replicatedLog(root.resolve("other"));
        assertThatThrownBy(() -> notEmpty.restoreFollowerStateFromRemote(leaderEpochs, leaderProducers))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void truncatingACompactedLogBringsTheCleanerCheckpointDownToTheNewEnd() {
        LogConfig compacted = LogConfig.builder()
                .cleanupPolicy(java.util.Set.of(CleanupPolicy.COMPACT))
                .segmentBytes(200)
                .build();
        manager = new LogManager(
                List.of(root), compacted, LogManagerConfig.defaults().withoutBackgroundTasks(), () -> NOW_MS);
        PartitionLog log = manager.getOrCreateLog(TP, Uuid.ZERO_UUID, compacted);
        String[][] segments = {{"a=1", "b=1"}, {"a=2", "c=1"}, {"b=2", "c=2"}, {"d=1", "a=3"}, {"e=1"}};
        for (String[] records : segments) {
            log.appendAsLeader(KeyedBatches.batch(NOW_MS, records), 0, NOW_MS);
            log.updateHighWatermark(log.logEndOffset());
            log.roll();
        }
        manager.runCleaner(NOW_MS).orElseThrow();
        assertThat(manager.cleaner().checkpoint(log).getAsLong()).isGreaterThan(3);

        log.truncateTo(3);

        assertThat(manager.cleaner().checkpoint(log)).hasValue(log.logEndOffset());
        for (String[] records : new String[][] {{"a=4", "b=3"}, {"a=5", "b=4"}, {"a=6"}}) {
            log.appendAsLeader(KeyedBatches.batch(NOW_MS, records), 0, NOW_MS);
            log.updateHighWatermark(log.logEndOffset());
            log.roll();
        }
        assertThat(manager.runCleaner(NOW_MS)).as("cleaning is not left paused").isPresent();
    }

    @Test
    void aTruncationThatRunsOutOfDescriptorsPartWayTakesTheLogOfflineAndTheNextLoadIsConsistent() throws Exception {
        PartitionLog log = replicatedLog(root);
        List<String> full = readAll(log);
        log.injectStepFaults(step -> {
            if (step.equals("truncate leader epochs")) {
                throw new io.varve.storage.fs.FileHandlesExhaustedException("no descriptor left");
            }
        });

        assertThat(catchFailure(() -> log.truncateTo(9))).isTrue();
        assertThat(log.isOffline())
                .as("half done: the files no longer match the log in memory")
                .isTrue();
        manager.close();

        PartitionLog reloaded = open(root);
        List<String> records = readAll(reloaded);
        assertThat(records).isEqualTo(full.subList(0, records.size()));
        assertConsistent(reloaded, "a lack of descriptors");
    }

    @Test
    void truncateToBelowTheFirstSegmentStartsTheLogAfreshThere() {
        PartitionLog log = replicatedLog(root);
        log.truncateFullyAndStartAt(50);
        log.appendAsFollower(TestBatches.asReplicated(TestBatches.batch("n", 2), 50, 7));

        assertThat(log.truncateTo(40)).isTrue();

        assertThat(log.logStartOffset()).isEqualTo(40);
        assertThat(log.logEndOffset()).isEqualTo(40);
        assertThat(log.segmentBaseOffsets()).containsExactly(40L);
    }

    @Test
    void anotherLineageAppendedAfterATruncationSurvivesACrash() throws Exception {
        PartitionLog log = replicatedLog(root);
        log.truncateTo(10);
        for (int i = 0; i < 6; i++) {
            log.appendAsFollower(TestBatches.asReplicated(TestBatches.batchOfSize("new" + i, 2, 40), 10 + 2L * i, 5));
        }
        List<String> expected = readAll(log);
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root));

        PartitionLog reopened = open(root);
        assertThat(readAll(reopened)).isEqualTo(expected);
        assertThat(reopened.leaderEpochEntries())
                .containsExactly(new EpochEntry(1, 0), new EpochEntry(2, 8), new EpochEntry(5, 10));
    }

    @Test
    void aCrashAtAnyStepOfATruncationLoadsALogEndingBetweenTheTwoEndsWithMatchingEpochsAndProducers() throws Exception {
        List<String> steps = new ArrayList<>();
        PartitionLog dryRun = replicatedLog(root.resolve("dry-run"));
        List<String> full = readAll(dryRun);
        dryRun.injectStepFaults(steps::add);
        dryRun.truncateTo(9);
        List<String> truncated = readAll(dryRun);
        manager.close();
        assertThat(steps).contains("truncate leader epochs", "rebuild producer state");

        for (int i = 0; i < steps.size(); i++) {
            String step = steps.get(i);
            Path dir = root.resolve("crash-" + i);
            PartitionLog log = replicatedLog(dir);
            log.injectStepFaults(reached -> {
                if (reached.equals(step)) {
                    throw new IOException("crash before " + step);
                }
            });
            assertThat(catchFailure(() -> log.truncateTo(9)))
                    .as("dying before %s", step)
                    .isTrue();
            manager.close(); // the dir failed: no clean-shutdown marker, so the next start recovers it

            PartitionLog reloaded = open(dir);
            List<String> records = readAll(reloaded);
            assertThat(records.size()).as("after a crash before %s", step).isBetween(truncated.size(), full.size());
            assertThat(records).isEqualTo(full.subList(0, records.size()));
            assertConsistent(reloaded, step);
            assertNoLeftoverFiles(reloaded);
            reloaded.truncateTo(9);
            assertThat(readAll(reloaded)).isEqualTo(truncated);
            assertConsistent(reloaded, step);
            manager.close();
            manager = null;
        }
    }

    @Test
    void aCrashAtAnyStepOfAFullTruncationLoadsTheOldLogShorterOrAnEmptyOne() throws Exception {
        List<String> steps = new ArrayList<>();
        PartitionLog dryRun = replicatedLog(root.resolve("dry-run"));
        List<String> full = readAll(dryRun);
        dryRun.injectStepFaults(steps::add);
        dryRun.truncateFullyAndStartAt(30);
        manager.close();

        for (int i = 0; i < steps.size(); i++) {
            String step = steps.get(i);
            Path dir = root.resolve("crash-" + i);
            PartitionLog log = replicatedLog(dir);
            log.injectStepFaults(reached -> {
                if (reached.equals(step)) {
                    throw new IOException("crash before " + step);
                }
            });
            assertThat(catchFailure(() -> log.truncateFullyAndStartAt(30))).isTrue();
            manager.close();

            PartitionLog reloaded = open(dir);
            List<String> records = readAll(reloaded);
            assertThat(records).as("after a crash before %s", step).isEqualTo(full.subList(0, records.size()));
            if (records.isEmpty()) {
                assertThat(reloaded.leaderEpochEntries()).isEmpty();
                assertThat(reloaded.producerStates()).isEmpty();
            }
            assertConsistent(reloaded, step);
            assertNoLeftoverFiles(reloaded);
            reloaded.truncateFullyAndStartAt(30);
            assertThat(reloaded.logEndOffset()).isEqualTo(30);
            manager.close();
            manager = null;
        }
    }

    /** The epochs are those the batches tell and the producer's state is its last kept batch's. */
    private static void assertConsistent(PartitionLog log, String step) throws IOException {
        List<EpochEntry> expectedEpochs = new ArrayList<>();
        int lastSequence = -1;
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            for (MutableRecordBatch batch : TestBatches.batches(
                    log.read(next, Integer.MAX_VALUE, Long.MAX_VALUE, true).records())) {
                if (expectedEpochs.isEmpty()
                        || expectedEpochs.get(expectedEpochs.size() - 1).epoch() < batch.partitionLeaderEpoch()) {
                    expectedEpochs.add(new EpochEntry(batch.partitionLeaderEpoch(), batch.baseOffset()));
                }
                if (batch.producerId() == PRODUCER) {
                    lastSequence = batch.lastSequence();
                }
                next = batch.nextOffset();
            }
        }
        assertThat(log.leaderEpochEntries()).as("epochs after %s", step).isEqualTo(expectedEpochs);
        ProducerStateEntry entry = log.producerStates().get(PRODUCER);
        if (lastSequence < 0) {
            assertThat(entry).as("producer after %s", step).isNull();
        } else {
            assertThat(entry.lastSequence()).as("producer after %s", step).contains(lastSequence);
        }
        assertThat(log.highWatermark()).isLessThanOrEqualTo(log.logEndOffset());
        assertThat(Files.exists(log.dir().getParent().resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE)))
                .isTrue();
    }

    private static void assertNoLeftoverFiles(PartitionLog reloaded) throws IOException {
        try (Stream<Path> files = Files.list(reloaded.dir())) {
            assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.endsWith(".deleted"));
        }
    }

    private static boolean catchFailure(Runnable action) {
        try {
            action.run();
            return false;
        } catch (RuntimeException e) {
            return true;
        }
    }
}
