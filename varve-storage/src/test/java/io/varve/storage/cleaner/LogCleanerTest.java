package io.varve.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.AppendOrigin;
import io.varve.storage.CleanupPolicy;
import io.varve.storage.KeyedBatches;
import io.varve.storage.KeyedBatches.Rec;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.LogManagerConfig;
import io.varve.storage.LogTestAccess;
import io.varve.storage.PartitionLog;
import io.varve.storage.TestBatches;
import io.varve.storage.TmpfsTempDirFactory;
import io.varve.storage.checkpoint.OffsetCheckpointFile;
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.segment.AbortedTxn;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogCleanerTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final TopicPartition TP = new TopicPartition("compacted", 0);
    private static final LogConfig COMPACTED = LogConfig.builder()
            .cleanupPolicy(Set.of(CleanupPolicy.COMPACT))
            .deleteRetentionMs(10_000)
            .fileDeleteDelayMs(0)
            .build();

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    private final AtomicLong clock = new AtomicLong(T0);
    private LogManager manager;

    private LogManager start(CleanerConfig cleaner) {
        manager = new LogManager(
                List.of(root),
                COMPACTED,
                LogManagerConfig.defaults().withoutBackgroundTasks().withCleaner(cleaner),
                clock::get);
        return manager;
    }

    private PartitionLog start(LogConfig config) {
        return start(CleanerConfig.defaults()).getOrCreateLog(TP, Uuid.ZERO_UUID, config);
    }

    private PartitionLog restart() {
        manager.close();
        return start(CleanerConfig.defaults()).getLog(TP).orElseThrow();
    }

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    private void append(PartitionLog log, String... keyValues) {
        append(log, KeyedBatches.batch(clock.get(), keyValues));
    }

    private void append(PartitionLog log, ByteBuffer batch) {
        log.appendAsLeader(batch, 0, clock.get());
        log.updateHighWatermark(log.logEndOffset());
    }

    private Optional<CleaningResult> clean() {
        return manager.runCleaner(clock.get());
    }

    @Test
    void cleaningKeepsTheLatestValueOfEachKeyAtItsOffsetAndNeverTouchesTheActiveSegment() {
        PartitionLog log = start(COMPACTED);
        append(log, "a=1", "b=1");
        LogTestAccess.roll(log);
        append(log, "a=2", "c=1");
        LogTestAccess.roll(log);
        append(log, "a=3", "c=2");

        CleaningResult result = clean().orElseThrow();

        assertThat(result.firstDirtyOffset()).isZero();
        assertThat(result.endOffset()).isEqualTo(4);
        assertThat(KeyedBatches.readAll(log))
                .containsExactly(
                        new Rec(1, "b", "1"),
                        new Rec(2, "a", "2"),
                        new Rec(3, "c", "1"),
                        new Rec(4, "a", "3"),
                        new Rec(5, "c", "2"));
        assertThat(log.segmentBaseOffsets())
                .as("two small segments merged; the active one as it was")
                .containsExactly(0L, 4L);
        assertThat(manager.cleaner().checkpoint(log)).hasValue(4);

        PartitionLog reopened = restart();
        assertThat(KeyedBatches.readAll(reopened))
                .containsExactly(
                        new Rec(1, "b", "1"),
                        new Rec(2, "a", "2"),
                        new Rec(3, "c", "1"),
                        new Rec(4, "a", "3"),
                        new Rec(5, "c", "2"));
        assertThat(manager.cleaner().checkpoint(reopened)).hasValue(4);
        assertThat(clean()).as("nothing dirty outside the active segment").isEmpty();
    }

    @Test
    void aLogBelowItsMinCleanableDirtyRatioWaitsUntilMaxCompactionLagPasses() {
        PartitionLog log = start(COMPACTED.withMaxCompactionLagMs(60_000));
        for (int i = 0; i < 20; i++) {
            append(log, "k" + i + "=v");
        }
        LogTestAccess.roll(log);
        assertThat(clean()).isPresent();
        append(log, "k1=w");
        LogTestAccess.roll(log);

        assertThat(clean()).as("1 dirty batch of 21 is below the ratio 0.5").isEmpty();
        clock.addAndGet(60_001);
        assertThat(clean())
                .as("the dirty batch waited longer than max.compaction.lag.ms")
                .isPresent();
        assertThat(KeyedBatches.readAll(log))
                .filteredOn(r -> r.key().equals("k1"))
                .containsExactly(new Rec(20, "k1", "w"));
    }

    @Test
    void recordsYoungerThanMinCompactionLagAreNotCleanedYet() {
        PartitionLog log = start(COMPACTED.withMinCompactionLagMs(60_000));
        append(log, "a=1", "a=2");
        LogTestAccess.roll(log);
        clock.addAndGet(60_001);
        append(log, "b=1", "b=2");
        LogTestAccess.roll(log);

        assertThat(clean().orElseThrow().endOffset())
                .as("the young segment is the uncleanable bound")
                .isEqualTo(2);
        assertThat(KeyedBatches.readAll(log)).extracting(Rec::offset).containsExactly(1L, 2L, 3L);

        clock.addAndGet(60_001);
        assertThat(manager.cleaner().clean(log, clock.get())).isPresent();
        assertThat(KeyedBatches.readAll(log)).extracting(Rec::offset).containsExactly(1L, 3L);
    }

    @Test
    void aDedupeBufferTooSmallForTheDirtyKeysCleansAPrefixAndLaterPassesTheRest() {
        // 12 slots hold 10 keys: one batch of 6 fits, two do not
        start(new CleanerConfig(true, 1, 1000, 12 * KeyOffsetMap.BYTES_PER_ENTRY));
        PartitionLog log = manager.getOrCreateLog(TP, Uuid.ZERO_UUID, COMPACTED.withMinCleanableDirtyRatio(0));
        String[] first = {"k0=a", "k1=a", "k2=a", "k3=a", "k4=a", "k5=a"};
        append(log, first);
        LogTestAccess.roll(log);
        append(log, "k6=a", "k7=a", "k8=a", "k9=a", "k10=a", "k11=a");
        LogTestAccess.roll(log);
        append(log, "k0=b", "k1=b", "k2=b", "k3=b", "k4=b", "k5=b");
        LogTestAccess.roll(log);

        assertThat(clean().orElseThrow().endOffset()).isEqualTo(6);
        assertThat(clean().orElseThrow().endOffset()).isEqualTo(12);
        assertThat(KeyedBatches.readAll(log)).hasSize(18);
        assertThat(clean().orElseThrow().endOffset()).isEqualTo(18);

        assertThat(KeyedBatches.readAll(log))
                .extracting(Rec::offset)
                .containsExactly(6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L);
    }

    @Test
    void aTombstoneStaysForDeleteRetentionAfterItsFirstCleaningThenGoesWithoutNewWrites() {
        PartitionLog log = start(COMPACTED);
        append(log, "a=1", "b=1");
        LogTestAccess.roll(log);
        append(log, "a=", "c=1");
        LogTestAccess.roll(log);
        append(log, "d=1");

        assertThat(clean().orElseThrow().earliestTombstoneHorizonMs()).isEqualTo(T0 + 10_000);
        assertThat(KeyedBatches.readAll(log))
                .containsExactly(
                        new Rec(1, "b", "1"), new Rec(2, "a", null), new Rec(3, "c", "1"), new Rec(4, "d", "1"));

        clock.set(T0 + 9_999);
        assertThat(clean()).isEmpty();
        assertThat(KeyedBatches.readAll(log)).extracting(Rec::key).contains("a");

        clock.set(T0 + 10_000);
        assertThat(clean()).as("the horizon passed: an idle log gets a pass").isPresent();
        assertThat(KeyedBatches.readAll(log))
                .containsExactly(new Rec(1, "b", "1"), new Rec(3, "c", "1"), new Rec(4, "d", "1"));
        assertThat(clean()).isEmpty();
    }

    private void appendMarker(PartitionLog log, long producerId, boolean commit) {
        log.appendAsLeader(
                TestBatches.marker(producerId, (short) 0, 0, commit, clock.get()),
                0,
                clock.get(),
                AppendOrigin.COORDINATOR);
        log.updateHighWatermark(log.logEndOffset());
    }

    private static List<Long> markerOffsets(PartitionLog log) {
        return KeyedBatches.readBatches(log).stream()
                .filter(b -> b.isControlBatch())
                .map(b -> b.baseOffset())
                .toList();
    }

    private static List<Rec> dataRecords(PartitionLog log) {
        List<Rec> out = new java.util.ArrayList<>();
        KeyedBatches.readBatches(log).stream()
                .filter(b -> !b.isControlBatch())
                .forEach(b -> b.forEach(r -> out.add(new Rec(
                        r.offset(),
                        StandardCharsets.UTF_8.decode(r.key()).toString(),
                        r.hasValue() ? StandardCharsets.UTF_8.decode(r.value()).toString() : null))));
        return out;
    }

    @Test
    void abortedDataIsRemovedCommittedDataIsCompactedAndAMarkerGoesDeleteRetentionAfterItsDataIsGone() {
        PartitionLog log = start(COMPACTED.withMinCleanableDirtyRatio(0));
        append(log, "a=1", "b=1"); // 0-1
        append(log, KeyedBatches.transactional(5L, (short) 0, 0, clock.get(), "a=2", "c=1")); // 2-3
        appendMarker(log, 5L, false); // 4
        append(log, KeyedBatches.transactional(6L, (short) 0, 0, clock.get(), "b=2")); // 5
        appendMarker(log, 6L, true); // 6
        append(log, KeyedBatches.transactional(5L, (short) 0, 2, clock.get(), "d=1")); // 7
        appendMarker(log, 5L, true); // 8
        LogTestAccess.roll(log);
        append(log, "z=1"); // 9

        clean().orElseThrow();

        assertThat(dataRecords(log))
                .as("the aborted a=2 shadows nothing; the committed b=2 shadows b=1")
                .containsExactly(
                        new Rec(0, "a", "1"), new Rec(5, "b", "2"), new Rec(7, "d", "1"), new Rec(9, "z", "1"));
        assertThat(markerOffsets(log))
                .as("markers stay while this pass met their data")
                .containsExactly(4L, 6L, 8L);
        assertThat(log.abortedTransactions(0, 10)).containsExactly(new AbortedTxn(5, 2, 4, 5));

        LogTestAccess.roll(log);
        append(log, "b=3"); // 10
        LogTestAccess.roll(log);
        CleaningResult second = clean().orElseThrow();
        assertThat(second.earliestTombstoneHorizonMs())
                .as("the abort marker's horizon")
                .isEqualTo(T0 + 10_000);
        assertThat(markerOffsets(log)).containsExactly(4L, 6L, 8L);
        assertThat(log.abortedTransactions(0, 11))
                .as("no data of the abort is left to skip")
                .isEmpty();
        assertThat(dataRecords(log))
                .containsExactly(
                        new Rec(0, "a", "1"), new Rec(7, "d", "1"), new Rec(9, "z", "1"), new Rec(10, "b", "3"));

        clock.set(T0 + 10_000);
        clean().orElseThrow();
        // producer 6's last batch stays (emptied) for its producer state, and with it the marker that ends it
        assertThat(markerOffsets(log)).as("the abort marker went").containsExactly(6L, 8L);
        assertThat(dataRecords(log))
                .containsExactly(
                        new Rec(0, "a", "1"), new Rec(7, "d", "1"), new Rec(9, "z", "1"), new Rec(10, "b", "3"));
        PartitionLog reopened = restart();
        assertThat(reopened.lastStableOffset())
                .as("no transaction reopened by the rebuild")
                .isEqualTo(11);
    }

    @Test
    void anOpenTransactionBoundsTheCleanableRange() {
        PartitionLog log = start(COMPACTED.withMinCleanableDirtyRatio(0));
        append(log, "a=1");
        LogTestAccess.roll(log);
        append(log, KeyedBatches.transactional(5L, (short) 0, 0, clock.get(), "a=2")); // 1, open
        LogTestAccess.roll(log);
        append(log, "a=3"); // 2
        LogTestAccess.roll(log);
        append(log, "z=1");

        assertThat(clean().orElseThrow().endOffset())
                .as("stops before the segment of the open transaction")
                .isEqualTo(1);
        assertThat(dataRecords(log)).extracting(Rec::offset).containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void compressedBatchesAreCleanedAndStayCompressed() {
        PartitionLog log = start(COMPACTED);
        append(log, KeyedBatches.batch(Compression.gzip().build(), clock.get(), "a=1", "b=1", "a=2"));
        LogTestAccess.roll(log);
        append(log, "z=1");

        clean().orElseThrow();

        assertThat(KeyedBatches.readAll(log))
                .containsExactly(new Rec(1, "b", "1"), new Rec(2, "a", "2"), new Rec(3, "z", "1"));
        assertThat(KeyedBatches.readBatches(log).get(0).compressionType().name).isEqualTo("gzip");
    }

    @Test
    void smallSegmentsAreMergedUpToSegmentBytes() {
        PartitionLog log = start(COMPACTED);
        for (int i = 0; i < 6; i++) {
            append(log, "k" + i + "=v");
            LogTestAccess.roll(log);
        }
        assertThat(log.segmentCount()).isEqualTo(7);
        clean().orElseThrow();
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 6L);

        PartitionLog tight = manager.getOrCreateLog(
                new TopicPartition("tight", 0),
                Uuid.ZERO_UUID,
                COMPACTED.withSegmentBytes(2L * log.rolledSegments().get(0).sizeBytes() / 6 + 10));
        for (int i = 0; i < 6; i++) {
            append(tight, "k" + i + "=v");
            LogTestAccess.roll(tight);
        }
        manager.cleaner().clean(tight, clock.get()).orElseThrow();
        assertThat(tight.segmentBaseOffsets()).as("two segments per group").containsExactly(0L, 2L, 4L, 6L);
    }

    @Test
    void compactAndDeleteAppliesRetentionTooWhileCompactOnlyNeverDeletes() {
        start(CleanerConfig.defaults());
        LogConfig expiring = COMPACTED.withRetentionMs(1_000).withRetentionBytes(1);
        PartitionLog compactOnly =
                manager.getOrCreateLog(new TopicPartition("compact-only", 0), Uuid.ZERO_UUID, expiring);
        PartitionLog both = manager.getOrCreateLog(
                new TopicPartition("both", 0),
                Uuid.ZERO_UUID,
                expiring.withCleanupPolicy(Set.of(CleanupPolicy.COMPACT, CleanupPolicy.DELETE)));
        for (PartitionLog log : List.of(compactOnly, both)) {
            append(log, "a=1", "b=1");
            LogTestAccess.roll(log);
            append(log, "a=2");
        }
        clock.addAndGet(2_000);
        manager.runRetention(clock.get());

        assertThat(compactOnly.logStartOffset()).isZero();
        assertThat(KeyedBatches.readAll(compactOnly)).hasSize(3);
        assertThat(both.logStartOffset()).isEqualTo(3);
        assertThat(KeyedBatches.readAll(both)).isEmpty();
    }

    @Test
    void theLastBatchOfAProducerSurvivesCleaningEmptySoItsStateRebuildsFromTheLog() throws Exception {
        PartitionLog log = start(COMPACTED);
        append(log, KeyedBatches.idempotent(5L, (short) 0, 0, clock.get(), "a=1", "b=1"));
        append(log, "a=2", "b=2");
        LogTestAccess.roll(log);
        append(log, "c=1");
        clean().orElseThrow();
        assertThat(KeyedBatches.readBatches(log).get(0).countOrNull())
                .as("emptied but kept")
                .isZero();

        // a crash that also lost every producer snapshot: the state must come from the batches themselves
        manager.close();
        try (Stream<Path> files = Files.list(log.dir())) {
            for (Path snapshot :
                    files.filter(f -> f.toString().endsWith(".snapshot")).toList()) {
                Files.delete(snapshot);
            }
        }
        Files.delete(root.resolve(LogManager.CLEAN_SHUTDOWN_FILE));
        PartitionLog reopened = start(CleanerConfig.defaults()).getLog(TP).orElseThrow();

        assertThat(reopened.producerStates().get(5L).batches())
                .extracting(BatchMetadata::lastSeq)
                .containsExactly(1);
        assertThat(reopened.appendAsLeader(
                                KeyedBatches.idempotent(5L, (short) 0, 0, clock.get(), "a=1", "b=1"), 0, clock.get())
                        .duplicate())
                .as("a retry of the last batch is still recognised")
                .isTrue();
    }

    @Test
    void keylessRecordsAreRefusedByACompactedLogOnly() {
        PartitionLog log = start(COMPACTED);
        assertThatThrownBy(() -> append(log, "a=1", "=no-key")).isInstanceOf(InvalidRecordException.class);
        assertThat(log.logEndOffset()).isZero();

        PartitionLog plain =
                manager.getOrCreateLog(new TopicPartition("plain", 0), Uuid.ZERO_UUID, LogConfig.defaults());
        append(plain, "=no-key");
        assertThat(plain.logEndOffset()).isEqualTo(1);
    }

    @Test
    void corruptDataStopsThePassAndTheLogIsNotCleanedAgainUntilRestart() throws Exception {
        PartitionLog log = start(COMPACTED);
        append(log, "a=1", "a=2");
        LogTestAccess.roll(log);
        append(log, "b=1");
        Path segment = log.rolledSegments().get(0).logFile();
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            channel.write(
                    ByteBuffer.wrap(new byte[] {(byte) 0xEE}), 70); // inside the records: the CRC no longer matches
        }
        byte[] before = Files.readAllBytes(segment);

        assertThat(clean()).isEmpty();
        assertThat(clean()).isEmpty();
        assertThat(Files.readAllBytes(segment)).isEqualTo(before);
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, 2L);
    }

    @Test
    void aPausedLogIsNotCleanedAndDeletingALogDropsItsCheckpoint() {
        PartitionLog log = start(COMPACTED);
        append(log, "a=1", "a=2");
        LogTestAccess.roll(log);
        append(log, "b=1");

        manager.cleaner().abortAndPause(TP);
        assertThat(clean()).isEmpty();
        manager.cleaner().resume(TP);
        assertThat(clean()).isPresent();
        OffsetCheckpointFile checkpoints = new OffsetCheckpointFile(root, OffsetCheckpointFile.CLEANER_OFFSET_FILE);
        assertThat(checkpoints.read()).containsEntry(TP, 2L);

        manager.deleteLog(TP);
        assertThat(checkpoints.read()).doesNotContainKey(TP);
    }

    @Test
    void aPassWhoseSegmentsRetentionDeletedMeanwhileChangesNothingAndLeavesNoFiles() throws Exception {
        start(CleanerConfig.defaults());
        PartitionLog log = manager.getOrCreateLog(
                TP,
                Uuid.ZERO_UUID,
                COMPACTED
                        .withRetentionBytes(1)
                        .withFileDeleteDelayMs(60_000)
                        .withCleanupPolicy(Set.of(CleanupPolicy.COMPACT, CleanupPolicy.DELETE)));
        append(log, "a=1", "a=2");
        LogTestAccess.roll(log);
        append(log, "b=1");
        LogTestAccess.roll(log);
        append(log, "c=1");
        LogToClean target = LogToClean.of(log, -1, clock.get());

        manager.runRetention(clock.get());
        assertThatThrownBy(() -> new CleaningPass(target, new KeyOffsetMap(100), clock.get(), () -> false).run())
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(KeyedBatches.readAll(log)).containsExactly(new Rec(3, "c", "1"));
        assertThat(cleanedFiles(log)).isEmpty();
    }

    @Test
    void anAbortedPassChangesNothingAndLeavesNoFiles() throws Exception {
        PartitionLog log = start(COMPACTED);
        append(log, "a=1", "a=2");
        LogTestAccess.roll(log);
        append(log, "b=1");
        LogToClean target = LogToClean.of(log, -1, clock.get());
        int[] checks = {0};

        assertThatThrownBy(
                        () -> new CleaningPass(target, new KeyOffsetMap(100), clock.get(), () -> ++checks[0] > 1).run())
                .isInstanceOf(CancellationException.class);

        assertThat(KeyedBatches.readAll(log)).hasSize(3);
        assertThat(cleanedFiles(log)).isEmpty();
        assertThat(clean()).isPresent();
    }

    private static List<Path> cleanedFiles(PartitionLog log) throws Exception {
        try (Stream<Path> files = Files.list(log.dir())) {
            return files.filter(f -> f.getFileName().toString().endsWith(".cleaned"))
                    .toList();
        }
    }
}
