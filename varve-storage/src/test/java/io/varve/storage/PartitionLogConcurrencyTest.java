package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers running beside an appender only ever see whole, valid, correctly offset batches. */
class PartitionLogConcurrencyTest {

    private static final int BATCHES = 1500;

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    @Test
    void concurrentReadsSeeOnlyCompleteBatchesWhileAppendsAndRollsHappen() throws Exception {
        LogConfig config = LogConfig.defaults().withSegmentBytes(8 * 1024).withIndexIntervalBytes(256);
        try (LogManager manager = new LogManager(List.of(root), config)) {
            PartitionLog log = manager.getOrCreateLog(new TopicPartition("c", 0), Uuid.randomUuid(), config);
            AtomicBoolean appending = new AtomicBoolean(true);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong readsWithData = new AtomicLong();

            Thread appender = new Thread(() -> {
                try {
                    Random random = new Random(1);
                    for (int i = 0; i < BATCHES; i++) {
                        int count = 1 + random.nextInt(3);
                        log.appendAsLeader(
                                TestBatches.batch("at" + log.logEndOffset(), count), 0, TestBatches.CREATE_TIME_MS);
                        log.updateHighWatermark(log.logEndOffset());
                    }
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    appending.set(false);
                }
            });
            Thread[] readers = new Thread[2];
            for (int r = 0; r < readers.length; r++) {
                long seed = r;
                readers[r] = new Thread(() -> {
                    Random random = new Random(seed);
                    try {
                        while (appending.get()) {
                            long end = log.logEndOffset();
                            long fetchOffset = end == 0 ? 0 : random.nextLong(end + 1);
                            LogReadResult result =
                                    log.read(fetchOffset, 1 + random.nextInt(2000), log.highWatermark(), true);
                            if (checkRead(fetchOffset, result)) {
                                readsWithData.incrementAndGet();
                            }
                        }
                    } catch (Throwable t) {
                        failures.add(t);
                    }
                });
            }
            appender.start();
            for (Thread reader : readers) {
                reader.start();
            }
            appender.join();
            for (Thread reader : readers) {
                reader.join();
            }

            assertThat(failures).isEmpty();
            assertThat(readsWithData.get()).isPositive();
            assertThat(log.segmentCount()).isGreaterThan(5);
        }
    }

    @Test
    void slicesTakenBeforeRetentionStayReadableWhileHeadSegmentsAreDeleted() throws Exception {
        LogConfig config = LogConfig.defaults().withSegmentBytes(4 * 1024).withIndexIntervalBytes(256);
        try (LogManager manager = new LogManager(List.of(root), config)) {
            PartitionLog log = manager.getOrCreateLog(new TopicPartition("c", 1), Uuid.randomUuid(), config);
            AtomicBoolean appending = new AtomicBoolean(true);
            ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            AtomicLong slicesRead = new AtomicLong();
            Thread appender = new Thread(() -> {
                try {
                    Random random = new Random(2);
                    for (int i = 0; i < BATCHES; i++) {
                        log.appendAsLeader(
                                TestBatches.batch("at" + log.logEndOffset(), 1 + random.nextInt(3)),
                                0,
                                TestBatches.CREATE_TIME_MS);
                        log.updateHighWatermark(log.logEndOffset());
                        if (i % 50 == 49) {
                            log.deleteRecordsBefore(Math.max(0, log.highWatermark() - 200));
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                } finally {
                    appending.set(false);
                }
            });
            Thread reader = new Thread(() -> {
                Random random = new Random(3);
                try {
                    while (appending.get()) {
                        long start = log.logStartOffset();
                        long fetchOffset = start + random.nextLong(log.logEndOffset() - start + 1);
                        LogSlice slice;
                        try {
                            slice = log.readSlice(fetchOffset, 1 + random.nextInt(3000), log.highWatermark(), true);
                        } catch (org.apache.kafka.common.errors.OffsetOutOfRangeException e) {
                            assertThat(fetchOffset)
                                    .as("only offsets below a moved start are out of range")
                                    .isLessThan(log.logStartOffset());
                            continue;
                        }
                        Thread.onSpinWait(); // let retention move past the slice before its bytes are sent
                        ByteBuffer bytes = ByteBuffer.allocate(slice.sizeBytes());
                        if (slice.sizeBytes() > 0) {
                            slice.channel().read(bytes, slice.position());
                        }
                        LogReadResult asRead = new LogReadResult(
                                bytes.flip(), slice.highWatermark(), slice.logStartOffset(), slice.logEndOffset());
                        if (checkRead(fetchOffset, asRead)) {
                            slicesRead.incrementAndGet();
                        }
                    }
                } catch (Throwable t) {
                    failures.add(t);
                }
            });
            appender.start();
            reader.start();
            appender.join();
            reader.join();

            assertThat(failures).isEmpty();
            assertThat(slicesRead.get()).isPositive();
            assertThat(log.logStartOffset()).isPositive();
        }
    }

    /** Asserts the read holds contiguous valid batches, the first holding fetchOffset; true if non-empty. */
    private static boolean checkRead(long fetchOffset, LogReadResult result) {
        List<MutableRecordBatch> batches = TestBatches.batches(result.records());
        int wholeBytes =
                batches.stream().mapToInt(MutableRecordBatch::sizeInBytes).sum();
        assertThat(wholeBytes).isEqualTo(result.records().remaining());
        long expectedNext = -1;
        for (MutableRecordBatch batch : batches) {
            batch.ensureValid();
            if (expectedNext < 0) {
                assertThat(batch.baseOffset()).isLessThanOrEqualTo(fetchOffset);
                assertThat(batch.lastOffset()).isGreaterThanOrEqualTo(fetchOffset);
            } else {
                assertThat(batch.baseOffset()).isEqualTo(expectedNext);
            }
            assertThat(batch.lastOffset()).isLessThan(result.logEndOffset());
            Record first = batch.iterator().next();
            assertThat(new String(org.apache.kafka.common.utils.Utils.toArray(first.value())))
                    .isEqualTo("at" + batch.baseOffset() + "-0");
            expectedNext = batch.nextOffset();
        }
        return !batches.isEmpty();
    }
}
