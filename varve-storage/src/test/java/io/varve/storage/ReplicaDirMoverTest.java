package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica moved between log dirs (AlterReplicaLogDirs): the new log holds every batch, leader epoch and producer of
 * the old one, appends made during the move are not lost, a truncation of the old log is followed, and a crash at any
 * step of the swap recovers to exactly one replica holding every record.
 */
class ReplicaDirMoverTest {

    private static final TopicPartition TP = new TopicPartition("moving", 0);
    private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(256 * 1024);

    @TempDir
    Path root;

    private final List<LogManager> managers = new ArrayList<>();

    @AfterEach
    void closeAll() {
        managers.forEach(LogManager::close);
    }

    private LogManager start(Path a, Path b) {
        LogManager manager = new LogManager(
                List.of(a, b), CONFIG, LogManagerConfig.defaults().withoutBackgroundTasks(), () -> 1_000L);
        managers.add(manager);
        return manager;
    }

    /** A log in {@code a} with plain batches over several segments, an idempotent producer and two leader epochs. */
    private static PartitionLog logWithHistory(LogManager manager, Path a, int batches) {
        manager.preferLogDir(TP, a);
        PartitionLog log = manager.getOrCreateLog(TP, Uuid.randomUuid(), CONFIG);
        for (int i = 0; i < batches; i++) {
            if (i == batches / 2) {
                log.assignLeaderEpochAtLogEnd(3);
            }
            int epoch = i < batches / 2 ? 0 : 3;
            log.appendAsLeader(TestBatches.batchOfSize("b" + i, 5, 3000), epoch, TestBatches.CREATE_TIME_MS);
            log.appendAsLeader(TestBatches.idempotent(7L, (short) 1, i * 2, 2), epoch, TestBatches.CREATE_TIME_MS);
        }
        log.updateHighWatermark(log.logEndOffset());
        return log;
    }

    /** Runs copy passes until the replica of {@link #TP} is in {@code dir}; fails if it takes implausibly many. */
    private static PartitionLog moveUntilIn(LogManager manager, Path dir) {
        for (int pass = 0; pass < 10_000; pass++) {
            PartitionLog current = manager.getLog(TP).orElseThrow();
            if (current.dir().getParent().equals(dir.toAbsolutePath().normalize())) {
                return current;
            }
            manager.replicaMover().copyPass();
        }
        throw new AssertionError("the move did not complete");
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> children = Files.list(dir)) {
            return children.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void aMovedReplicaHoldsEveryBatchEpochAndProducerOfTheOldOneInTheNewDirAndAfterARestart() throws Exception {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        LogManager manager = start(a, b);
        PartitionLog before = logWithHistory(manager, a, 60);
        assertThat(before.segmentCount()).isGreaterThan(3);
        before.assignLeaderEpochAtLogEnd(5); // a leader elected that has not appended yet
        List<String> records = LogTestSupport.readAll(before);
        var epochs = before.leaderEpochEntries();
        var producers = before.producerStates();
        long highWatermark = before.highWatermark();

        manager.moveReplica(TP, b);
        PartitionLog after = moveUntilIn(manager, b);

        assertThat(after).isNotSameAs(before);
        assertThat(LogTestSupport.readAll(after)).isEqualTo(records);
        assertThat(after.leaderEpochEntries()).isEqualTo(epochs);
        assertThat(after.producerStates()).isEqualTo(producers);
        assertThat(after.highWatermark()).isEqualTo(highWatermark);
        assertThat(names(a)).noneMatch(n -> n.startsWith(TP.topic()));
        assertThat(names(b)).contains("moving-0").noneMatch(n -> n.endsWith(ReplicaDirMover.FUTURE_DIR_SUFFIX));
        assertThatThrownBy(() -> before.appendAsLeader(TestBatches.batch("late", 1), 5, TestBatches.CREATE_TIME_MS))
                .isInstanceOf(KafkaStorageException.class);
        // an idempotent retry of the last batch is still recognised as a duplicate on the new log
        assertThat(after.appendAsLeader(TestBatches.idempotent(7L, (short) 1, 118, 2), 5, TestBatches.CREATE_TIME_MS)
                        .duplicate())
                .isTrue();
        after.appendAsLeader(TestBatches.batch("new", 2), 5, TestBatches.CREATE_TIME_MS);
        List<String> withNew = LogTestSupport.readAll(after);

        manager.close();
        managers.remove(manager);
        LogManager restarted = start(a, b);
        PartitionLog reloaded = restarted.getLog(TP).orElseThrow();
        assertThat(reloaded.dir().getParent()).isEqualTo(b.toAbsolutePath().normalize());
        assertThat(LogTestSupport.readAll(reloaded)).isEqualTo(withNew);
        assertThat(reloaded.leaderEpochEntries()).isEqualTo(after.leaderEpochEntries());
    }

    @Test
    void futureReplicaIsListedWithItsLagUntilItTakesOver() {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        LogManager manager = start(a, b);
        PartitionLog log = manager.getOrCreateLog(TP, Uuid.randomUuid(), CONFIG);
        for (int i = 0; i < 40; i++) {
            log.appendAsLeader(TestBatches.batchOfSize("big" + i, 1, 200_000), 0, TestBatches.CREATE_TIME_MS);
        }
        Path destination = log.dir().getParent().equals(a.toAbsolutePath().normalize()) ? b : a;
        manager.moveReplica(TP, destination);
        manager.replicaMover().copyPass(); // a chunk ends with its segment: one batch of 40

        List<FutureReplica> futures = manager.futureReplicas();
        assertThat(futures).hasSize(1);
        assertThat(futures.get(0).logDir())
                .isEqualTo(destination.toAbsolutePath().normalize());
        assertThat(futures.get(0).offsetLag()).isBetween(1L, 39L);
        assertThat(futures.get(0).sizeBytes()).isPositive();

        moveUntilIn(manager, destination);
        assertThat(manager.futureReplicas()).isEmpty();
    }

    @Test
    void aMoveBackToTheCurrentDirGivesUpTheMoveAndDeletesTheFutureLog() throws Exception {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        LogManager manager = start(a, b);
        manager.preferLogDir(TP, a);
        PartitionLog log = manager.getOrCreateLog(TP, Uuid.randomUuid(), CONFIG);
        for (int i = 0; i < 40; i++) {
            log.appendAsLeader(TestBatches.batchOfSize("big" + i, 1, 200_000), 0, TestBatches.CREATE_TIME_MS);
        }
        manager.moveReplica(TP, b);
        manager.replicaMover().copyPass();
        assertThat(names(b)).anyMatch(n -> n.endsWith(ReplicaDirMover.FUTURE_DIR_SUFFIX));

        manager.moveReplica(TP, a);
        manager.replicaMover().copyPass();

        assertThat(manager.futureReplicas()).isEmpty();
        assertThat(names(b)).noneMatch(n -> n.startsWith(TP.topic()));
        assertThat(manager.getLog(TP)).containsSame(log);
    }

    @Test
    void aReplicaAskedForBeforeItExistsIsCreatedInThatDir() {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        LogManager manager = start(a, b);
        for (int p = 1; p <= 3; p++) { // b holds fewer logs afterwards, so only the preference puts the next in a
            manager.preferLogDir(new TopicPartition("other", p), a);
            manager.getOrCreateLog(new TopicPartition("other", p), Uuid.randomUuid(), CONFIG);
        }
        manager.preferLogDir(TP, a);
        PartitionLog created = manager.getOrCreateLog(TP, Uuid.randomUuid(), CONFIG);
        assertThat(created.dir().getParent()).isEqualTo(a.toAbsolutePath().normalize());
    }

    @Test
    void aTruncationOfTheCurrentLogDuringTheMoveIsFollowedByTheFutureLog() {
        Path a = root.resolve("a");
        Path b = root.resolve("b");
        LogManager manager = start(a, b);
        manager.preferLogDir(TP, a);
        PartitionLog follower = manager.getOrCreateLog(TP, Uuid.randomUuid(), CONFIG);
        long next = 0;
        for (int i = 0; i < 30; i++) {
            follower.appendAsFollower(
                    TestBatches.asReplicated(TestBatches.batchOfSize("old" + i, 1, 200_000), next, 1));
            next++;
        }
        manager.moveReplica(TP, b);
        for (int pass = 0; pass < 10; pass++) {
            manager.replicaMover().copyPass(); // a segment, so a batch, per pass
        }
        assertThat(manager.futureReplicas().get(0).offsetLag()).isEqualTo(20);

        follower.truncateTo(5); // the new leader's log diverges at offset 5
        for (int i = 0; i < 30; i++) {
            follower.appendAsFollower(
                    TestBatches.asReplicated(TestBatches.batchOfSize("new" + i, 1, 200_000), 5 + i, 2));
        }
        List<String> expected = LogTestSupport.readAll(follower);
        var epochs = follower.leaderEpochEntries();

        PartitionLog moved = moveUntilIn(manager, b);
        assertThat(LogTestSupport.readAll(moved)).isEqualTo(expected);
        assertThat(moved.leaderEpochEntries()).isEqualTo(epochs);
    }

    @Test
    void appendsDuringTheMoveAreAllInTheNewLogUnderManySchedules() throws Exception {
        for (int seed = 0; seed < 12; seed++) {
            Random random = new Random(seed);
            Path a = root.resolve("seed-" + seed + "/a");
            Path b = root.resolve("seed-" + seed + "/b");
            LogManager manager = start(a, b);
            manager.preferLogDir(TP, a);
            AtomicReference<PartitionLog> current =
                    new AtomicReference<>(manager.getOrCreateLog(TP, Uuid.randomUuid(), CONFIG));
            Object partitionLock = new Object(); // what the broker's partition monitor is to its writers
            manager.onReplicaSwap((tp, swap) -> {
                synchronized (partitionLock) {
                    PartitionLog serving = swap.get();
                    current.set(serving);
                    return serving;
                }
            });
            int before = random.nextInt(200);
            for (int i = 0; i < before; i++) {
                current.get()
                        .appendAsLeader(
                                TestBatches.batchOfSize(
                                        "s" + seed + "-" + i, 1 + random.nextInt(4), random.nextInt(3000)),
                                0,
                                TestBatches.CREATE_TIME_MS);
            }
            AtomicBoolean stop = new AtomicBoolean();
            int seedNow = seed;
            List<Long> ackedOffsets = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread writer = new Thread(() -> {
                int i = 0;
                while (!stop.get() && i < 5_000) {
                    synchronized (partitionLock) {
                        AppendResult r = current.get()
                                .appendAsLeader(
                                        TestBatches.batchOfSize("w" + seedNow + "-" + i, 1, 200),
                                        0,
                                        TestBatches.CREATE_TIME_MS);
                        ackedOffsets.add(r.baseOffset());
                    }
                    i++;
                }
            });
            writer.start();
            manager.moveReplica(TP, b);
            PartitionLog moved;
            try {
                moved = moveUntilIn(manager, b);
            } finally {
                stop.set(true);
                writer.join();
            }
            List<String> all = LogTestSupport.readAll(current.get());
            assertThat(current.get()).as("seed %d", seed).isSameAs(moved);
            assertThat(all.size()).as("seed %d", seed).isGreaterThanOrEqualTo(before + ackedOffsets.size());
            List<Long> offsets = all.stream()
                    .map(r -> Long.parseLong(r.substring(0, r.indexOf(':'))))
                    .toList();
            assertThat(offsets)
                    .as("seed %d: every acknowledged append is there", seed)
                    .containsAll(ackedOffsets);
            for (int i = 0; i < offsets.size(); i++) {
                assertThat(offsets.get(i))
                        .as("seed %d: offsets are dense", seed)
                        .isEqualTo((long) i);
            }
        }
    }

    /** {@link #logWithHistory} plus a few large batches, so that the copy takes several chunks. */
    private static List<String> logOfSeveralChunks(LogManager manager, Path a) {
        PartitionLog log = logWithHistory(manager, a, 20);
        for (int i = 0; i < 3; i++) {
            log.appendAsLeader(TestBatches.batchOfSize("large" + i, 1, 200_000), 3, TestBatches.CREATE_TIME_MS);
        }
        log.updateHighWatermark(log.logEndOffset());
        return LogTestSupport.readAll(log);
    }

    @Test
    void aCrashAtAnyStepOfTheMoveRecoversToExactlyOneReplicaWithEveryRecord() throws Exception {
        List<String> steps = new ArrayList<>();
        LogManager dryRun = start(root.resolve("dry/a"), root.resolve("dry/b"));
        logOfSeveralChunks(dryRun, root.resolve("dry/a"));
        dryRun.replicaMover().injectStepFaults(steps::add);
        dryRun.moveReplica(TP, root.resolve("dry/b"));
        moveUntilIn(dryRun, root.resolve("dry/b"));
        assertThat(steps).contains("copy-chunk", "close-future", "rename-source", "rename-future");
        assertThat(steps.indexOf("close-future")).isGreaterThan(1); // chunks copied before the swap

        for (int i = 0; i < steps.size(); i++) {
            Path run = root.resolve("run-" + i);
            Path crashed = root.resolve("crash-" + i);
            LogManager manager = start(run.resolve("a"), run.resolve("b"));
            List<String> records = logOfSeveralChunks(manager, run.resolve("a"));
            int crashAt = i;
            int[] reached = {0};
            manager.replicaMover().injectStepFaults(step -> {
                if (reached[0]++ == crashAt) {
                    copyTree(run, crashed); // the files as a crash before this step leaves them
                }
            });
            manager.moveReplica(TP, run.resolve("b"));
            moveUntilIn(manager, run.resolve("b"));

            String when = "after a crash before step " + i + " (" + steps.get(i) + ")";
            LogManager recovered = start(crashed.resolve("a"), crashed.resolve("b"));
            List<Path> replicas = new ArrayList<>();
            for (Path dir : List.of(crashed.resolve("a"), crashed.resolve("b"))) {
                for (String name : names(dir)) {
                    if (name.startsWith(TP.topic())) {
                        replicas.add(dir.resolve(name));
                    }
                }
            }
            assertThat(replicas).as(when).hasSize(1);
            assertThat(replicas.get(0).getFileName().toString()).as(when).isEqualTo("moving-0");
            PartitionLog log = recovered.getLog(TP).orElseThrow();
            assertThat(log.dir())
                    .as(when)
                    .isEqualTo(replicas.get(0).toAbsolutePath().normalize());
            assertThat(LogTestSupport.readAll(log)).as(when).isEqualTo(records);
        }
    }

    private static void copyTree(Path from, Path to) {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path source : all.toList()) {
                Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    Files.createDirectories(target);
                } else if (!source.getFileName().toString().equals(LogDirs.LOCK_FILE)) {
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
