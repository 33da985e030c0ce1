package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.checkpoint.OffsetCheckpointFile;
import io.varve.storage.producer.ProducerSnapshotFiles;
import io.varve.storage.segment.LogSegment;
import io.varve.storage.segment.SegmentFiles;
import io.varve.storage.segment.SegmentSwap;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What start-up reads and trusts: checkpoints, producer snapshots, recovery from the recovery point,
 * corrupt data, and completing or rolling back a segment swap.
 */
class PartitionLogStartupTest {

    private static final TopicPartition TP = new TopicPartition("events", 0);
    private static final long NOW_MS = TestBatches.CREATE_TIME_MS;
    private static final long PID = 77L;
    private static final LogConfig CONFIG =
            LogConfig.defaults().withSegmentBytes(1024).withIndexIntervalBytes(64);

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    private final Uuid topicId = Uuid.randomUuid();
    private final AtomicLong clock = new AtomicLong(NOW_MS);
    private LogManager manager;

    private PartitionLog start() {
        manager = new LogManager(
                List.of(root),
                CONFIG,
                LogManagerConfig.defaults().withoutBackgroundTasks().withProducerIdExpirationMs(60_000),
                clock::get);
        return manager.getOrCreateLog(TP, topicId, CONFIG);
    }

    @AfterEach
    void stop() {
        if (manager != null) {
            manager.close();
        }
    }

    /** Plain batches over several segments, an idempotent producer's batches (sequences 0-1, 2-3) in the last. */
    private PartitionLog logOfFourSegmentsAndAProducer() {
        PartitionLog log = start();
        for (int i = 0; log.segmentCount() < 4; i++) {
            log.appendAsLeader(TestBatches.batchOfSize("v" + i, 2, 60), 3, NOW_MS);
        }
        log.appendAsLeader(TestBatches.idempotent(PID, (short) 0, 0, 2), 3, NOW_MS);
        log.appendAsLeader(TestBatches.idempotent(PID, (short) 0, 2, 2), 3, NOW_MS);
        return log;
    }

    private static void overwriteByte(Path file, long position, int value) throws Exception {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[] {(byte) value}), position);
        }
    }

    /** Start positions of the batches in a segment file. */
    private static List<Integer> batchPositions(Path segmentFile) throws Exception {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(segmentFile));
        List<Integer> positions = new ArrayList<>();
        for (int at = 0; at < bytes.limit(); at += RecordBatchV2.sizeBytes(bytes, at)) {
            positions.add(at);
        }
        return positions;
    }

    @Test
    void cleanStartReadsNoSegmentData() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        long endOffset = log.logEndOffset();
        List<Path> segmentFiles = LogTestSupport.segmentFiles(log.dir());
        manager.close();
        // invalid headers that any scan would stop at: the first batch of a rolled segment, the last of the active one
        Path rolled = segmentFiles.get(1);
        Path active = segmentFiles.get(segmentFiles.size() - 1);
        overwriteByte(rolled, RecordBatchV2.MAGIC_OFFSET, 9);
        List<Integer> activeBatches = batchPositions(active);
        overwriteByte(active, activeBatches.get(activeBatches.size() - 1) + RecordBatchV2.MAGIC_OFFSET, 9);

        PartitionLog reopened = start();
        assertThat(reopened.logEndOffset()).isEqualTo(endOffset);
        // producer state came from the snapshot, not from the (now unreadable) last batch
        assertThat(reopened.appendAsLeader(TestBatches.idempotent(PID, (short) 0, 2, 2), 3, NOW_MS)
                        .duplicate())
                .isTrue();

        long rolledBase = SegmentFiles.parseBaseOffset(rolled.getFileName().toString(), SegmentFiles.LOG_SUFFIX)
                .getAsLong();
        assertThatThrownBy(() -> reopened.read(rolledBase, 100, Long.MAX_VALUE, true))
                .isInstanceOf(KafkaStorageException.class)
                .hasMessageContaining("corrupt");
        assertThat(reopened.isOffline()).as("corrupt data is never served").isTrue();
        assertThatThrownBy(() -> reopened.read(0, 100, Long.MAX_VALUE, true)).isInstanceOf(KafkaStorageException.class);
    }

    @Test
    void uncleanStartChecksOnlySegmentsFromTheRecoveryPointOn() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        long endOffset = log.logEndOffset();
        Path rolled = LogTestSupport.segmentFiles(log.dir()).get(1);
        manager.close();
        overwriteByte(rolled, Files.size(rolled) - 1, 0x5A); // a CRC mismatch in a rolled segment
        LogTestSupport.forgetCleanShutdown(List.of(root));

        // the recovery point (the log end at close) is past the damaged segment: it is not read
        assertThat(start().logEndOffset()).isEqualTo(endOffset);
        manager.close();
        LogTestSupport.forgetCleanShutdown(List.of(root));
        Files.delete(root.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE));

        // without a recovery point every segment is CRC-checked, and a damaged rolled one stops the start loudly
        assertThatThrownBy(this::start)
                .isInstanceOf(KafkaStorageException.class)
                .hasMessageContaining(rolled.getFileName().toString())
                .hasMessageContaining("corrupt");
        manager = null;
    }

    @Test
    void recoveryPointAndLogStartCheckpointsUseKafkasFormat() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        long activeBase = log.segmentBaseOffsets().get(3);
        manager.checkpoint();
        Path recoveryPoints = root.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE);
        assertThat(Files.readString(recoveryPoints))
                .as("rolled segments are fsynced: the point is the active base")
                .isEqualTo("0\n1\nevents 0 " + activeBase + "\n");
        log.flush();
        manager.checkpoint();
        assertThat(Files.readString(recoveryPoints)).isEqualTo("0\n1\nevents 0 " + log.logEndOffset() + "\n");
        assertThat(Files.readString(root.resolve(OffsetCheckpointFile.LOG_START_OFFSET_FILE)))
                .isEqualTo("0\n1\nevents 0 0\n");
    }

    @Test
    void uncleanTruncationBelowTheShutdownSnapshotFallsBackToAnOlderOneAndReplays() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        Path active = LogTestSupport.lastSegmentFile(log.dir());
        long endOffset = log.logEndOffset();
        manager.close();
        assertThat(snapshotOffsets(log.dir())).contains(endOffset);
        List<Integer> batches = batchPositions(active);
        LogTestSupport.truncate(active, batches.get(batches.size() - 1) + 10); // tear the batch with sequences 2-3
        LogTestSupport.forgetCleanShutdown(List.of(root));

        PartitionLog recovered = start();
        assertThat(recovered.logEndOffset()).isEqualTo(endOffset - 2);
        assertThat(snapshotOffsets(log.dir())).allMatch(offset -> offset <= endOffset - 2);
        assertThat(recovered
                        .appendAsLeader(TestBatches.idempotent(PID, (short) 0, 0, 2), 3, NOW_MS)
                        .duplicate())
                .isTrue();
        AppendResult resent = recovered.appendAsLeader(TestBatches.idempotent(PID, (short) 0, 2, 2), 3, NOW_MS);
        assertThat(resent.duplicate())
                .as("the torn batch is gone, so its retry is new")
                .isFalse();
        assertThat(resent.baseOffset()).isEqualTo(endOffset - 2);
    }

    @Test
    void unreadableSnapshotIsDeletedAndTheStateRebuiltFromTheLog() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        Path newest = log.dir().resolve(SegmentFiles.fileName(log.logEndOffset(), SegmentFiles.SNAPSHOT_SUFFIX));
        manager.close();
        overwriteByte(newest, 20, 0x33);

        PartitionLog reopened = start();
        assertThat(newest).doesNotExist();
        assertThat(reopened.appendAsLeader(TestBatches.idempotent(PID, (short) 0, 2, 2), 3, NOW_MS)
                        .duplicate())
                .isTrue();
    }

    @Test
    void snapshotsAreTakenAtRollsAndOnlyTheNewestFewAreKept() throws Exception {
        PartitionLog log = start();
        List<Long> rollOffsets = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            log.appendAsLeader(TestBatches.batch("r" + i, 1), 0, NOW_MS);
            log.roll();
            rollOffsets.add(log.logEndOffset());
        }
        assertThat(snapshotOffsets(log.dir())).containsExactlyElementsOf(rollOffsets.subList(3, 6));
    }

    @Test
    void idleProducersExpireAndStayForgottenAfterARestart() throws Exception {
        PartitionLog log = start();
        log.appendAsLeader(TestBatches.idempotent(PID, (short) 0, 0, 1), 3, NOW_MS);
        manager.expireProducers(NOW_MS + 59_999);
        assertThat(log.producerStates()).containsOnlyKeys(PID);
        manager.expireProducers(NOW_MS + 60_000);
        assertThat(log.producerStates()).isEmpty();
        manager.close();

        PartitionLog reopened = start();
        assertThat(reopened.producerStates()).isEmpty();
        assertThat(reopened.appendAsLeader(TestBatches.idempotent(PID, (short) 0, 40, 1), 3, NOW_MS)
                        .duplicate())
                .isFalse();
    }

    @Test
    void replaceSegmentsSwapsCleanedSegmentsInAndRetiresTheOldOnes() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        List<Long> bases = log.segmentBaseOffsets();
        ByteBuffer kept = log.read(2, 1, Long.MAX_VALUE, true).records(); // one batch of segment 0 survives cleaning
        LogSegment cleaned = LogSegment.createCleaned(log.dir(), 0);
        cleaned.append(kept, CONFIG.indexIntervalBytes(), CONFIG.maxIndexSizeBytes());

        log.replaceSegments(List.of(cleaned), List.of(bases.get(0), bases.get(1)));
        assertThat(log.segmentBaseOffsets()).containsExactly(0L, bases.get(2), bases.get(3));
        assertThat(log.rolledSegments()).extracting(LogSegment::baseOffset).containsExactly(0L, bases.get(2));
        assertThat(TestBatches.batches(
                        log.read(0, 10_000, Long.MAX_VALUE, false).records()))
                .extracting(b -> b.baseOffset())
                .containsExactly(2L);
        assertThat(LogTestSupport.readAll(log)).first().asString().startsWith("2:");
        assertThat(Files.exists(log.dir().resolve(SegmentSwap.MANIFEST_FILE))).isFalse();
        List<String> before = LogTestSupport.readAll(log);
        manager.close();

        PartitionLog reopened = start();
        assertThat(reopened.segmentBaseOffsets()).containsExactly(0L, bases.get(2), bases.get(3));
        assertThat(LogTestSupport.readAll(reopened)).isEqualTo(before);
    }

    @Test
    void aSwapCommittedBeforeACrashIsCompletedOnLoad() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        List<Long> bases = log.segmentBaseOffsets();
        ByteBuffer kept = log.read(bases.get(1), 1, Long.MAX_VALUE, true).records();
        Path dir = log.dir();
        manager.close();
        try (LogSegment cleaned = LogSegment.createCleaned(dir, 0)) {
            cleaned.append(kept, CONFIG.indexIntervalBytes(), CONFIG.maxIndexSizeBytes());
            cleaned.flush();
        }
        SegmentSwap.writeManifest(dir, new SegmentSwap.Manifest(List.of(0L, bases.get(1)), List.of(0L)));
        // the crash came after the old segment 0 was renamed, before anything else
        Files.move(SegmentFiles.logFile(dir, 0), dir.resolve("00000000000000000000.log.deleted"));
        LogTestSupport.forgetCleanShutdown(List.of(root));

        PartitionLog reopened = start();
        assertThat(reopened.segmentBaseOffsets()).containsExactly(0L, bases.get(2), bases.get(3));
        assertThat(TestBatches.batches(reopened.read(0, 1, Long.MAX_VALUE, true).records())
                        .get(0)
                        .baseOffset())
                .isEqualTo(bases.get(1));
        assertThat(dir.resolve(SegmentSwap.MANIFEST_FILE)).doesNotExist();
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .noneMatch(name -> name.endsWith(".cleaned") || name.endsWith(".deleted"));
        }
    }

    @Test
    void aSwapWithoutItsManifestIsRolledBackOnLoad() throws Exception {
        PartitionLog log = logOfFourSegmentsAndAProducer();
        List<String> before = LogTestSupport.readAll(log);
        Path dir = log.dir();
        manager.close();
        try (LogSegment cleaned = LogSegment.createCleaned(dir, 0)) {
            cleaned.append(TestBatches.batch("cleaned", 1), CONFIG.indexIntervalBytes(), CONFIG.maxIndexSizeBytes());
        }

        PartitionLog reopened = start();
        assertThat(LogTestSupport.readAll(reopened)).isEqualTo(before);
        assertThat(dir.resolve("00000000000000000000.log.cleaned")).doesNotExist();
    }

    private static List<Long> snapshotOffsets(Path dir) throws Exception {
        return List.copyOf(ProducerSnapshotFiles.list(dir).keySet());
    }
}
