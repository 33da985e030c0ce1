package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers running beside an appender only ever see whole, valid, correctly offset batches. */
class PartitionLogConcurrencyTest {

  private static final int BATCHES = 1500;

  @TempDir
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
            log.appendAsLeader(TestBatches.batch("at" + log.logEndOffset(), count), 0, 0L);
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
              LogReadResult result = log.read(fetchOffset, 1 + random.nextInt(2000), log.highWatermark(), true);
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

  /** Asserts the read holds contiguous valid batches, the first holding fetchOffset; true if non-empty. */
  private static boolean checkRead(long fetchOffset, LogReadResult result) {
    List<MutableRecordBatch> batches = TestBatches.batches(result.records());
    int wholeBytes = batches.stream().mapToInt(MutableRecordBatch::sizeInBytes).sum();
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
