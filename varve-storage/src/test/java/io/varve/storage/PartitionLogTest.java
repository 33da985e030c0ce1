package io.varve.storage;

import static io.varve.storage.LogTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.batch.RecordBatchV2;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLogTest {

    private static final TopicPartition TP = new TopicPartition("orders", 3);
    private static final int EPOCH = 7;
    private static final long NOW_MS = 1_800_000_000_000L;

    @TempDir
    Path root;

    private final Uuid topicId = Uuid.randomUuid();
    private LogManager manager;

    @BeforeEach
    void start() {
        manager = new LogManager(List.of(root), LogConfig.defaults());
    }

    @AfterEach
    void stop() {
        manager.close();
    }

    private PartitionLog log(LogConfig config) {
        return manager.getOrCreateLog(TP, topicId, config);
    }

    private PartitionLog log() {
        return log(LogConfig.defaults());
    }

    private static AppendResult append(PartitionLog log, ByteBuffer records) {
        return log.appendAsLeader(records, EPOCH, NOW_MS);
    }

    private static List<MutableRecordBatch> readBatches(PartitionLog log, long fetchOffset, int maxBytes) {
        return TestBatches.batches(
                log.read(fetchOffset, maxBytes, Long.MAX_VALUE, true).records());
    }

    @Test
    void appendAssignsConsecutiveOffsetsAndPatchesBaseOffsetAndLeaderEpoch() {
        PartitionLog log = log();
        AppendResult first = append(log, TestBatches.batch("a", 3));
        AppendResult second = append(log, TestBatches.concat(TestBatches.batch("b", 2), TestBatches.gzipBatch("c", 4)));

        assertThat(first).isEqualTo(new AppendResult(0, 2, -1, 0, false));
        assertThat(second).isEqualTo(new AppendResult(3, 8, -1, 0, false));
        assertThat(log.logEndOffset()).isEqualTo(9);
        List<MutableRecordBatch> batches = readBatches(log, 0, Integer.MAX_VALUE);
        assertThat(batches).extracting(MutableRecordBatch::baseOffset).containsExactly(0L, 3L, 5L);
        assertThat(batches).extracting(MutableRecordBatch::partitionLeaderEpoch).containsOnly(EPOCH);
        assertThat(batches).extracting(MutableRecordBatch::timestampType).containsOnly(TimestampType.CREATE_TIME);
        assertThat(readAll(log))
                .containsExactly("0:a-0", "1:a-1", "2:a-2", "3:b-0", "4:b-1", "5:c-0", "6:c-1", "7:c-2", "8:c-3");
    }

    @Test
    void appendPatchesTheCallersBufferInPlace() {
        PartitionLog log = log();
        append(log, TestBatches.batch("a", 5));
        ByteBuffer records = TestBatches.batch("b", 1);
        append(log, records);
        assertThat(records.getLong(RecordBatchV2.BASE_OFFSET_OFFSET)).isEqualTo(5);
        assertThat(records.position()).isZero();
    }

    @Test
    void readOnlyInputIsCopiedAndAppendedUnchangedOtherwise() {
        PartitionLog log = log();
        append(log, TestBatches.batch("a", 2));
        ByteBuffer readOnly = TestBatches.batch("b", 1).asReadOnlyBuffer();
        assertThat(append(log, readOnly).baseOffset()).isEqualTo(2);
        assertThat(readAll(log)).containsExactly("0:a-0", "1:a-1", "2:b-0");
    }

    @Test
    void logAppendTimeStampsMaxTimestampAndTimestampTypeWithAValidCrc() {
        PartitionLog log = log(LogConfig.defaults().withLogAppendTime(true));
        AppendResult result = append(log, TestBatches.gzipBatch("a", 2));

        assertThat(result.logAppendTimeMs()).isEqualTo(NOW_MS);
        MutableRecordBatch batch = readBatches(log, 0, Integer.MAX_VALUE).get(0);
        batch.ensureValid();
        assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(batch.maxTimestamp()).isEqualTo(NOW_MS);
    }

    @Test
    void readFromTheMiddleOfABatchReturnsTheWholeBatchHoldingIt() {
        PartitionLog log = log();
        append(log, TestBatches.batch("a", 4));
        append(log, TestBatches.batch("b", 4));

        assertThat(readBatches(log, 6, Integer.MAX_VALUE))
                .extracting(MutableRecordBatch::baseOffset)
                .containsExactly(4L);
        assertThat(readBatches(log, 2, Integer.MAX_VALUE))
                .extracting(MutableRecordBatch::baseOffset)
                .containsExactly(0L, 4L);
    }

    @Test
    void readStopsAtMaxBytesButReturnsOneWholeBatchWhenMinOneBatch() {
        PartitionLog log = log();
        ByteBuffer big = TestBatches.batchOfSize("big", 1, 1000);
        int bigBytes = big.remaining();
        append(log, big);
        append(log, TestBatches.batch("small", 1));

        assertThat(log.read(0, 100, Long.MAX_VALUE, false).records().remaining())
                .isZero();
        assertThat(log.read(0, 100, Long.MAX_VALUE, true).records().remaining()).isEqualTo(bigBytes);
        assertThat(log.read(0, bigBytes + 10, Long.MAX_VALUE, true).records().remaining())
                .isEqualTo(bigBytes);
        assertThat(readBatches(log, 0, Integer.MAX_VALUE)).hasSize(2);
    }

    @Test
    void readNeverReturnsABatchAtOrPastMaxOffsetExclusive() {
        PartitionLog log = log();
        append(log, TestBatches.batch("a", 2));
        append(log, TestBatches.batch("b", 2));

        LogReadResult result = log.read(0, Integer.MAX_VALUE, 2, true);
        assertThat(TestBatches.batches(result.records()))
                .extracting(MutableRecordBatch::baseOffset)
                .containsExactly(0L);
        assertThat(log.read(2, Integer.MAX_VALUE, 2, true).records().remaining())
                .isZero();
    }

    @Test
    void readReportsOffsetsAndHighWatermark() {
        PartitionLog log = log();
        append(log, TestBatches.batch("a", 2));
        log.updateHighWatermark(1);
        LogReadResult result = log.read(0, 100, Long.MAX_VALUE, true);
        assertThat(result.highWatermark()).isEqualTo(1);
        assertThat(result.logStartOffset()).isZero();
        assertThat(result.logEndOffset()).isEqualTo(2);
        log.updateHighWatermark(99);
        assertThat(log.highWatermark()).isEqualTo(2);
    }

    @Test
    void readAtTheLogEndIsEmptyAndOutsideTheLogIsOutOfRange() {
        PartitionLog log = log();
        append(log, TestBatches.batch("a", 2));
        assertThat(log.read(2, 100, Long.MAX_VALUE, true).records().remaining()).isZero();
        assertThatThrownBy(() -> log.read(3, 100, Long.MAX_VALUE, true)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThatThrownBy(() -> log.read(-1, 100, Long.MAX_VALUE, true)).isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void rollsAtSegmentBytesAndReadsAcrossSegments() throws Exception {
        PartitionLog log = log(LogConfig.defaults().withSegmentBytes(1024));
        for (int i = 0; i < 30; i++) {
            append(log, TestBatches.batchOfSize("r" + i, 2, 40));
        }
        assertThat(log.segmentCount()).isGreaterThan(3);
        List<Path> segments = LogTestSupport.segmentFiles(log.dir());
        assertThat(segments).hasSize(log.segmentCount());
        for (Path segment : segments) {
            assertThat(Files.size(segment)).isLessThanOrEqualTo(1024);
        }
        List<String> all = readAll(log);
        assertThat(all).hasSize(60);
        assertThat(all.get(0)).startsWith("0:r0-0x");
        assertThat(all.get(59)).startsWith("59:r29-1x");
    }

    @Test
    void rollsWhenTheIndexIsFull() {
        PartitionLog log = log(LogConfig.defaults().withIndexIntervalBytes(0).withMaxIndexSizeBytes(8));
        for (int i = 0; i < 4; i++) {
            append(log, TestBatches.batch("b" + i, 1));
        }
        assertThat(log.segmentCount()).isEqualTo(4);
        assertThat(readAll(log)).containsExactly("0:b0-0", "1:b1-0", "2:b2-0", "3:b3-0");
    }

    @Test
    void failedChecksWriteNothing() throws Exception {
        PartitionLog log = log(LogConfig.defaults().withMaxMessageBytes(500).withSegmentBytes(1024));
        append(log, TestBatches.batch("ok", 2));
        long sizeBefore = Files.size(LogTestSupport.lastSegmentFile(log.dir()));

        ByteBuffer badMagic = TestBatches.batch("m", 1);
        badMagic.put(RecordBatchV2.MAGIC_OFFSET, (byte) 1);
        ByteBuffer badCrc = TestBatches.batch("c", 1);
        badCrc.put(badCrc.limit() - 1, (byte) 0x7F);
        ByteBuffer goodThenTorn = TestBatches.concat(
                TestBatches.batch("g", 1), TestBatches.batch("t", 1).limit(30));

        assertRejectedWithoutWriting(log, () -> append(log, ByteBuffer.allocate(0)), InvalidRecordException.class);
        assertRejectedWithoutWriting(log, () -> append(log, badMagic), InvalidRecordException.class);
        assertRejectedWithoutWriting(log, () -> append(log, badCrc), CorruptRecordException.class);
        assertRejectedWithoutWriting(log, () -> append(log, goodThenTorn), CorruptRecordException.class);
        assertRejectedWithoutWriting(
                log, () -> append(log, TestBatches.batchOfSize("big", 1, 600)), RecordTooLargeException.class);
        ByteBuffer tooManyForSegment = TestBatches.concat(
                TestBatches.batchOfSize("s1", 1, 400),
                TestBatches.batchOfSize("s2", 1, 400),
                TestBatches.batchOfSize("s3", 1, 400));
        assertRejectedWithoutWriting(log, () -> append(log, tooManyForSegment), RecordBatchTooLargeException.class);

        assertThat(goodThenTorn.getLong(RecordBatchV2.BASE_OFFSET_OFFSET))
                .as("caller buffer untouched")
                .isZero();
        assertThat(Files.size(LogTestSupport.lastSegmentFile(log.dir()))).isEqualTo(sizeBefore);
        assertThat(append(log, TestBatches.batch("after", 1)).baseOffset()).isEqualTo(2);
    }

    private static void assertRejectedWithoutWriting(
            PartitionLog log, ThrowingCallable append, Class<? extends Throwable> expected) {
        long endBefore = log.logEndOffset();
        assertThatThrownBy(append).isInstanceOf(expected);
        assertThat(log.logEndOffset()).isEqualTo(endBefore);
    }

    @Test
    void idempotentRetryIsADuplicateWithTheOriginalOffsets() {
        PartitionLog log = log();
        append(log, TestBatches.batch("plain", 2));
        AppendResult original = append(log, TestBatches.idempotent(9L, (short) 0, 0, 3));
        append(log, TestBatches.idempotent(9L, (short) 0, 3, 1));

        AppendResult retry = append(log, TestBatches.idempotent(9L, (short) 0, 0, 3));
        assertThat(retry).isEqualTo(new AppendResult(2, 4, -1, 0, true));
        assertThat(original.baseOffset()).isEqualTo(2);
        assertThat(log.logEndOffset()).isEqualTo(6);
    }

    @Test
    void outOfOrderSequenceAndOlderEpochAreRejectedWithoutWriting() {
        PartitionLog log = log();
        append(log, TestBatches.idempotent(9L, (short) 2, 0, 3));

        assertRejectedWithoutWriting(
                log, () -> append(log, TestBatches.idempotent(9L, (short) 2, 5, 1)), OutOfOrderSequenceException.class);
        assertRejectedWithoutWriting(
                log, () -> append(log, TestBatches.idempotent(9L, (short) 3, 1, 1)), OutOfOrderSequenceException.class);
        assertRejectedWithoutWriting(
                log,
                () -> append(log, TestBatches.idempotent(9L, (short) 1, 3, 1)),
                InvalidProducerEpochException.class);
        // a failed multi-batch append leaves no trace of its valid first batch either
        assertRejectedWithoutWriting(
                log,
                () -> append(
                        log,
                        TestBatches.concat(
                                TestBatches.idempotent(9L, (short) 2, 3, 1),
                                TestBatches.idempotent(9L, (short) 2, 9, 1))),
                OutOfOrderSequenceException.class);
        assertThat(append(log, TestBatches.idempotent(9L, (short) 2, 3, 1)).baseOffset())
                .isEqualTo(3);
        assertThat(append(log, TestBatches.idempotent(9L, (short) 3, 0, 1)).baseOffset())
                .isEqualTo(4);
    }

    @Test
    void leaderEpochCheckpointRecordsWhereEachEpochStarted() throws Exception {
        PartitionLog log = log();
        assertThat(log.latestLeaderEpoch()).isEqualTo(-1);
        log.appendAsLeader(TestBatches.batch("a", 2), 3, NOW_MS);
        log.appendAsLeader(TestBatches.batch("b", 2), 3, NOW_MS);
        log.appendAsLeader(TestBatches.batch("c", 1), 5, NOW_MS);

        assertThat(log.latestLeaderEpoch()).isEqualTo(5);
        assertThat(Files.readString(log.dir().resolve("leader-epoch-checkpoint")))
                .isEqualTo("0\n2\n3 0\n5 4\n");
    }

    @Test
    void flushMessagesFsyncsOnceEnoughOffsetsAreUnflushed() {
        PartitionLog log = log(LogConfig.defaults().withFlushMessages(3));
        append(log, TestBatches.batch("a", 1));
        append(log, TestBatches.batch("b", 1));
        assertThat(log.recoveryPoint()).isZero();
        append(log, TestBatches.batch("c", 1));
        assertThat(log.recoveryPoint()).isEqualTo(3);
    }

    @Test
    void flushMsFsyncsWhenTheLastFlushIsOldEnoughAtAppendTime() {
        PartitionLog log = log(LogConfig.defaults().withFlushMs(100));
        log.appendAsLeader(TestBatches.batch("a", 1), EPOCH, TestBatches.CREATE_TIME_MS + 1_000);
        log.appendAsLeader(TestBatches.batch("b", 1), EPOCH, TestBatches.CREATE_TIME_MS + 1_099);
        assertThat(log.recoveryPoint()).isZero();
        log.appendAsLeader(TestBatches.batch("c", 1), EPOCH, TestBatches.CREATE_TIME_MS + 1_100);
        assertThat(log.recoveryPoint()).isEqualTo(3);
    }

    @Test
    void aRollLeavesItsFsyncToABackgroundThreadAfterWhichTheRecoveryPointPassesTheRolledSegments() {
        PartitionLog log = log(LogConfig.defaults().withSegmentBytes(1024));
        for (int i = 0; i < 20; i++) {
            append(log, TestBatches.batchOfSize("s" + i, 2, 40));
        }
        List<RolledSegment> rolled = log.rolledSegmentViews();
        assertThat(rolled).isNotEmpty();
        long activeBase = rolled.get(rolled.size() - 1).endOffset() + 1;

        // no flush is asked for: the log manager's background thread syncs what the rolls left
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(log.recoveryPoint()).isGreaterThanOrEqualTo(activeBase));
        assertThat(log.recoveryPoint()).as("the active segment is not synced").isLessThan(log.logEndOffset());
        assertThat(readAll(log)).hasSize(40);
    }

    @Test
    void explicitFlushAdvancesTheRecoveryPoint() {
        PartitionLog log = log();
        append(log, TestBatches.batch("a", 4));
        log.flush();
        assertThat(log.recoveryPoint()).isEqualTo(4);
    }

    @Test
    void readSliceLocatesTheSameWholeBatchesAsReadWithoutCopying() throws Exception {
        PartitionLog log = log(LogConfig.defaults().withSegmentBytes(1024));
        for (int i = 0; i < 20; i++) {
            append(log, TestBatches.batchOfSize("s" + i, 2, 40));
        }
        for (long offset = 0; offset < log.logEndOffset(); offset += 3) {
            for (int maxBytes : new int[] {0, 50, 300, 5_000}) {
                LogReadResult read = log.read(offset, maxBytes, 33, maxBytes == 50);
                LogSlice slice = log.readSlice(offset, maxBytes, 33, maxBytes == 50);
                ByteBuffer sliced = ByteBuffer.allocate(slice.sizeBytes());
                if (slice.sizeBytes() > 0) {
                    slice.channel().read(sliced, slice.position());
                } else {
                    assertThat(slice.channel()).isNull();
                }
                assertThat(sliced.flip())
                        .as("offset %d, %d bytes", offset, maxBytes)
                        .isEqualTo(read.records());
                assertThat(slice.logEndOffset()).isEqualTo(read.logEndOffset());
                assertThat(slice.highWatermark()).isEqualTo(read.highWatermark());
            }
        }
        assertThat(log.readSlice(log.logEndOffset(), 100, Long.MAX_VALUE, true).isEmpty())
                .isTrue();
        assertThatThrownBy(() -> log.readSlice(log.logEndOffset() + 1, 100, Long.MAX_VALUE, true))
                .isInstanceOf(OffsetOutOfRangeException.class);
    }

    @Test
    void createTimeOutsideTheTimestampBoundsIsRejectedWithoutWriting() {
        PartitionLog log =
                log(LogConfig.defaults().withMessageTimestampAfterMaxMs(1_000).withMessageTimestampBeforeMaxMs(60_000));
        assertRejectedWithoutWriting(
                log,
                () -> log.appendAsLeader(TestBatches.batchAt("future", 1, 0, NOW_MS + 1_001, false), EPOCH, NOW_MS),
                InvalidTimestampException.class);
        assertRejectedWithoutWriting(
                log,
                () -> log.appendAsLeader(TestBatches.batchAt("past", 1, 0, NOW_MS - 60_001, false), EPOCH, NOW_MS),
                InvalidTimestampException.class);
        assertThat(log.appendAsLeader(TestBatches.batchAt("edge", 1, 0, NOW_MS + 1_000, false), EPOCH, NOW_MS)
                        .baseOffset())
                .isZero();
        assertThat(log.appendAsLeader(TestBatches.batchAt("edge", 1, 0, NOW_MS - 60_000, false), EPOCH, NOW_MS)
                        .baseOffset())
                .isEqualTo(1);
    }

    @Test
    void logAppendTimeTopicsIgnoreTheTimestampBounds() {
        PartitionLog log = log(LogConfig.defaults().withLogAppendTime(true).withMessageTimestampAfterMaxMs(0));
        assertThat(log.appendAsLeader(TestBatches.batchAt("f", 1, 0, NOW_MS + 99_999, false), EPOCH, NOW_MS)
                        .logAppendTimeMs())
                .isEqualTo(NOW_MS);
    }

    @Test
    void lookupsByTimeUseEachSegmentsTimeIndexAcrossSegmentsAndRestarts() {
        PartitionLog log = log(LogConfig.defaults().withSegmentBytes(700).withIndexIntervalBytes(100));
        // timestamps rise with a dip in every batch group: 1000, 1030, 1010, 1060, 1040, ...
        long[] timestamps = new long[40];
        for (int i = 0; i < timestamps.length; i++) {
            timestamps[i] = 1_000 + i * 20L + (i % 2 == 0 ? 0 : 10) - (i % 3 == 2 ? 25 : 0);
            log.appendAsLeader(TestBatches.batchAt("t" + i, 1, 30, timestamps[i], false), EPOCH, NOW_MS);
        }
        log.updateHighWatermark(log.logEndOffset());
        assertThat(log.segmentCount()).isGreaterThan(4);
        for (int restart = 0; restart < 2; restart++) {
            for (long target = 990; target <= 1_900; target += 7) {
                int expected = -1;
                for (int i = 0; i < timestamps.length && expected < 0; i++) {
                    expected = timestamps[i] >= target ? i : -1;
                }
                Optional<TimestampAndOffset> found = log.offsetForTimestamp(target);
                if (expected < 0) {
                    assertThat(found).as("target %d", target).isEmpty();
                } else {
                    assertThat(found)
                            .as("target %d", target)
                            .contains(new TimestampAndOffset(timestamps[expected], expected, EPOCH));
                }
            }
            int max = 0;
            for (int i = 1; i < timestamps.length; i++) {
                max = timestamps[i] > timestamps[max] ? i : max;
            }
            assertThat(log.maxTimestampAndOffset()).contains(new TimestampAndOffset(timestamps[max], max, EPOCH));
            manager.close();
            start();
            log = log(LogConfig.defaults().withSegmentBytes(700).withIndexIntervalBytes(100));
        }
    }

    @Test
    void closedLogRefusesAppendsAndReads() {
        PartitionLog log = log();
        log.close();
        assertThatThrownBy(() -> append(log, TestBatches.batch("a", 1))).isInstanceOf(KafkaStorageException.class);
        assertThatThrownBy(() -> log.read(0, 1, 1, true)).isInstanceOf(KafkaStorageException.class);
    }
}
