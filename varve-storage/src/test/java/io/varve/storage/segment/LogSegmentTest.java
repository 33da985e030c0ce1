package io.varve.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.TestBatches;
import io.varve.storage.batch.RecordBatchV2;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogSegmentTest {

    private static final long BASE = 100L;
    private static final int NO_INDEX_LIMIT = 1 << 20;

    @TempDir
    Path dir;

    /** A batch of {@code count} records already assigned {@code baseOffset}. */
    private static ByteBuffer batchAt(long baseOffset, int count) {
        ByteBuffer batch = TestBatches.batch("o" + baseOffset, count);
        RecordBatchV2.patchOffsetAndEpoch(batch, 0, baseOffset, 0);
        return batch;
    }

    /** Appends batches of 2 records at BASE, BASE+2, …; returns their sizes. */
    private static int appendBatches(LogSegment segment, int batches, int indexIntervalBytes) throws Exception {
        int batchBytes = 0;
        for (int i = 0; i < batches; i++) {
            ByteBuffer batch = batchAt(BASE + 2L * i, 2);
            batchBytes = batch.remaining();
            segment.append(batch, indexIntervalBytes, NO_INDEX_LIMIT);
        }
        return batchBytes;
    }

    @Test
    void fileNamesAreTheBaseOffsetZeroPaddedToTwentyDigits() {
        assertThat(SegmentFiles.fileName(42, SegmentFiles.LOG_SUFFIX)).isEqualTo("00000000000000000042.log");
        assertThat(SegmentFiles.parseBaseOffset("00000000000000000042.index", SegmentFiles.INDEX_SUFFIX))
                .hasValue(42);
        assertThat(SegmentFiles.parseBaseOffset("42.log", SegmentFiles.LOG_SUFFIX))
                .isEmpty();
        assertThat(SegmentFiles.parseBaseOffset("0000000000000000004x.log", SegmentFiles.LOG_SUFFIX))
                .isEmpty();
    }

    @Test
    void appendAddsAnIndexEntryOncePerIntervalOfBytes() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            int batchBytes = appendBatches(segment, 10, 1);
            // no entry before the first batch, then one before every batch
            assertThat(segment.index().entryCount()).isEqualTo(9);
            assertThat(segment.index().entry(0)).isEqualTo(new OffsetIndex.Entry(BASE + 2, batchBytes));
            assertThat(segment.sizeBytes()).isEqualTo(10 * batchBytes);
            assertThat(Files.size(segment.logFile())).isEqualTo(10L * batchBytes);
        }
    }

    @Test
    void fullIndexStopsTakingEntriesButAppendsContinue() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            for (int i = 0; i < 5; i++) {
                segment.append(batchAt(BASE + i, 1), 0, 2 * OffsetIndex.ENTRY_SIZE_BYTES);
            }
            assertThat(segment.index().entryCount()).isEqualTo(2);
            assertThat(segment.index().isFull(2 * OffsetIndex.ENTRY_SIZE_BYTES)).isTrue();
        }
    }

    @Test
    void readReturnsTheBatchHoldingTheOffsetAndWholeBatchesAfterIt() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            int batchBytes = appendBatches(segment, 10, 1);

            ByteBuffer read = segment.read(BASE + 7, Long.MAX_VALUE, 3 * batchBytes + 10, false);
            List<MutableRecordBatch> batches = TestBatches.batches(read);
            assertThat(batches)
                    .extracting(MutableRecordBatch::baseOffset)
                    .containsExactly(BASE + 6, BASE + 8, BASE + 10);
            assertThat(read.remaining()).isEqualTo(3 * batchBytes);
        }
    }

    @Test
    void readHonoursMaxOffsetExclusiveAndMinOneBatch() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            int batchBytes = appendBatches(segment, 4, 0);

            assertThat(TestBatches.batches(segment.read(BASE, BASE + 4, Integer.MAX_VALUE, false)))
                    .extracting(MutableRecordBatch::baseOffset)
                    .containsExactly(BASE, BASE + 2);
            assertThat(segment.read(BASE + 4, BASE + 4, Integer.MAX_VALUE, false)
                            .remaining())
                    .isZero();
            assertThat(segment.read(BASE, Long.MAX_VALUE, batchBytes - 1, false).remaining())
                    .isZero();
            assertThat(segment.read(BASE, Long.MAX_VALUE, batchBytes - 1, true).remaining())
                    .isEqualTo(batchBytes);
            assertThat(segment.read(BASE, Long.MAX_VALUE, 2 * batchBytes - 1, true)
                            .remaining())
                    .isEqualTo(batchBytes);
        }
    }

    @Test
    void readPastTheLastBatchReturnsNull() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            appendBatches(segment, 2, 0);
            assertThat(segment.read(BASE + 4, Long.MAX_VALUE, 1000, true)).isNull();
        }
    }

    @Test
    void scanTailFindsTheNextOffset() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            assertThat(segment.scanTail().nextOffset()).isEqualTo(BASE);
            appendBatches(segment, 7, 100);
            ScanResult tail = segment.scanTail();
            assertThat(tail.reachedEnd()).isTrue();
            assertThat(tail.nextOffset()).isEqualTo(BASE + 14);
        }
    }

    @Test
    void recoveryTruncatesGarbageAfterTheLastValidBatchAndRebuildsTheIndex() throws Exception {
        int validBytes;
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            appendBatches(segment, 6, 1);
            validBytes = segment.sizeBytes();
        }
        try (FileChannel file = FileChannel.open(SegmentFiles.logFile(dir, BASE), StandardOpenOption.APPEND)) {
            file.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 99, 7, 7, 7}));
        }
        Files.delete(SegmentFiles.indexFile(dir, BASE));
        try (LogSegment segment = LogSegment.open(dir, BASE)) {
            assertThat(segment.indexLooksConsistent()).isFalse();
            ScanResult result = segment.rebuildIndex(1, NO_INDEX_LIMIT, true);
            assertThat(result.validBytes()).isEqualTo(validBytes);
            assertThat(result.nextOffset()).isEqualTo(BASE + 12);
            assertThat(segment.sizeBytes()).isEqualTo(validBytes);
            assertThat(Files.size(segment.logFile())).isEqualTo(validBytes);
            assertThat(segment.index().entryCount()).isEqualTo(5);
            assertThat(segment.indexLooksConsistent()).isTrue();
        }
    }

    @Test
    void recoveryStopsAtABatchWithABadCrc() throws Exception {
        int firstTwoBytes;
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            appendBatches(segment, 2, 0);
            firstTwoBytes = segment.sizeBytes();
            segment.append(batchAt(BASE + 4, 2), 0, NO_INDEX_LIMIT);
        }
        try (FileChannel file = FileChannel.open(SegmentFiles.logFile(dir, BASE), StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(new byte[] {(byte) 0xFF}), firstTwoBytes + 70L); // inside the third batch
        }
        try (LogSegment segment = LogSegment.open(dir, BASE)) {
            ScanResult withoutCrc = segment.rebuildIndex(0, NO_INDEX_LIMIT, false);
            assertThat(withoutCrc.reachedEnd()).isTrue();
            ScanResult recovered = segment.rebuildIndex(0, NO_INDEX_LIMIT, true);
            assertThat(recovered.stop()).isEqualTo(BatchHeaderScanner.Stop.INVALID);
            assertThat(recovered.validBytes()).isEqualTo(firstTwoBytes);
            assertThat(recovered.nextOffset()).isEqualTo(BASE + 4);
        }
    }

    @Test
    void indexPointingPastTheLogIsInconsistent() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            appendBatches(segment, 4, 0);
        }
        try (FileChannel log = FileChannel.open(SegmentFiles.logFile(dir, BASE), StandardOpenOption.WRITE)) {
            log.truncate(100);
        }
        try (LogSegment segment = LogSegment.open(dir, BASE)) {
            assertThat(segment.indexLooksConsistent()).isFalse();
        }
    }

    @Test
    void timeIndexRecordsRisingMaxTimestampsAndFinishAddsTheSegmentMax() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            for (int i = 0; i < 6; i++) {
                segment.append(batchAtTime(BASE + i, 1_000L + (i % 3) * 10), 1, NO_INDEX_LIMIT);
            }
            // an entry before every batch but the first once the max rose: 1000 (at BASE), 1010, 1020
            assertThat(segment.timeIndex().entryCount()).isEqualTo(2);
            assertThat(segment.maxTimestamp()).isEqualTo(new LogSegment.MaxTimestamp(1_020, BASE + 2));
            segment.finish();
            assertThat(segment.timeIndex().lastEntry()).isEqualTo(new TimeIndex.Entry(1_020, BASE + 2));
            assertThat(segment.largestTimestampMs()).isEqualTo(1_020);
        }
        try (LogSegment reopened = LogSegment.open(dir, BASE)) {
            assertThat(reopened.maxTimestamp()).isEqualTo(new LogSegment.MaxTimestamp(1_020, BASE + 2));
            assertThat(reopened.indexLooksConsistent()).isTrue();
        }
    }

    @Test
    void firstBatchWithTimestampAtLeastUsesTheTimeIndexAndHonoursTheOffsetBounds() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            for (int i = 0; i < 20; i++) {
                segment.append(batchAtTime(BASE + i, 1_000L + i * 10), 1, NO_INDEX_LIMIT);
            }
            assertThat(segment.firstBatchWithTimestampAtLeast(1_095, BASE, Long.MAX_VALUE)
                            .baseOffset())
                    .isEqualTo(BASE + 10);
            assertThat(segment.firstBatchWithTimestampAtLeast(0, BASE + 3, Long.MAX_VALUE)
                            .baseOffset())
                    .isEqualTo(BASE + 3);
            assertThat(segment.firstBatchWithTimestampAtLeast(1_150, BASE, BASE + 15))
                    .isNull();
            assertThat(segment.firstBatchWithTimestampAtLeast(1_191, BASE, Long.MAX_VALUE))
                    .isNull();
        }
    }

    @Test
    void locateJumpsAlongTheIndexAndStillReturnsAsManyWholeBatchesAsFit() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            int batchBytes = appendBatches(segment, 40, 3 * 100);
            for (int maxBytes = 0; maxBytes < 12 * batchBytes; maxBytes += 37) {
                LogSegment.Slice slice = segment.locate(BASE + 5, Long.MAX_VALUE, maxBytes, true);
                int expectedBatches = Math.max(1, maxBytes / batchBytes);
                assertThat(slice)
                        .isEqualTo(new LogSegment.Slice(
                                2 * batchBytes, expectedBatches * batchBytes, BASE + 4 + 2L * expectedBatches));
            }
            assertThat(segment.locate(BASE, BASE + 9, Integer.MAX_VALUE, false))
                    .isEqualTo(new LogSegment.Slice(0, 5 * batchBytes, BASE + 10));
        }
    }

    @Test
    void renamedSegmentKeepsServingReadsThroughItsOpenChannel() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            appendBatches(segment, 3, 0);
            segment.changeStateSuffix(SegmentFiles.DELETED_SUFFIX);
            assertThat(SegmentFiles.logFile(dir, BASE)).doesNotExist();
            assertThat(dir.resolve("00000000000000000100.log.deleted")).exists();
            assertThat(dir.resolve("00000000000000000100.timeindex.deleted")).exists();
            assertThat(TestBatches.batches(segment.read(BASE, Long.MAX_VALUE, 10_000, true)))
                    .hasSize(3);
            segment.closeAndDelete();
            assertThat(dir.resolve("00000000000000000100.log.deleted")).doesNotExist();
        }
    }

    @Test
    void corruptHeaderBeforeTheWantedBatchIsReportedAsCorruption() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            appendBatches(segment, 3, 1_000_000);
        }
        try (FileChannel file = FileChannel.open(SegmentFiles.logFile(dir, BASE), StandardOpenOption.WRITE)) {
            file.write(ByteBuffer.wrap(new byte[] {9}), RecordBatchV2.MAGIC_OFFSET);
        }
        try (LogSegment segment = LogSegment.open(dir, BASE)) {
            assertThatThrownBy(() -> segment.read(BASE + 4, Long.MAX_VALUE, 1000, true))
                    .isInstanceOf(CorruptSegmentException.class)
                    .hasMessageContaining("magic 9");
        }
    }

    private static ByteBuffer batchAtTime(long baseOffset, long timestampMs) {
        ByteBuffer batch = TestBatches.batchAt("t" + baseOffset, 1, 0, timestampMs, false);
        RecordBatchV2.patchOffsetAndEpoch(batch, 0, baseOffset, 0);
        return batch;
    }

    @Test
    void scannerRejectsOffsetsGoingBackwards() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            segment.append(batchAt(BASE + 5, 2), Integer.MAX_VALUE, NO_INDEX_LIMIT);
            segment.append(batchAt(BASE + 3, 2), Integer.MAX_VALUE, NO_INDEX_LIMIT);
            BatchHeaderScanner scanner = segment.scanner(0, false);
            assertThat(scanner.next()).isNotNull();
            assertThat(scanner.next()).isNull();
            assertThat(scanner.stop()).isEqualTo(BatchHeaderScanner.Stop.INVALID);
        }
    }

    @Test
    void truncateToDropsTheBatchHoldingTheOffsetAndEveryLaterOneAndRebuildsTheIndexes() throws Exception {
        try (LogSegment segment = LogSegment.create(dir, BASE)) {
            int batchBytes = appendBatches(segment, 10, 1);
            assertThat(segment.index().entryCount()).isGreaterThan(5);

            assertThat(segment.truncateTo(BASE + 9, 1, NO_INDEX_LIMIT)).isEqualTo(BASE + 8);

            assertThat(segment.sizeBytes()).isEqualTo(4 * batchBytes);
            assertThat(segment.index().lastEntry().offset()).isLessThan(BASE + 8);
            assertThat(segment.indexLooksConsistent()).isTrue();
            assertThat(segment.read(BASE + 8, Long.MAX_VALUE, Integer.MAX_VALUE, true))
                    .isNull();
            segment.append(batchAt(BASE + 8, 2), 1, NO_INDEX_LIMIT);
            assertThat(segment.scanTail().nextOffset()).isEqualTo(BASE + 10);
            assertThat(segment.truncateTo(BASE, 1, NO_INDEX_LIMIT)).isEqualTo(BASE);
            assertThat(segment.isEmpty()).isTrue();
            assertThat(segment.index().entryCount()).isZero();
        }
    }
}
