package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random appends, reads, restarts and crashes (with garbage on the active segment) against a
 * model that is just the list of records and batch boundaries. A failure names its seed.
 */
class PartitionLogRandomOpsTest {

  private static final int SEEDS = 12;
  private static final int OPS_PER_SEED = 150;
  private static final TopicPartition TP = new TopicPartition("model", 0);
  private static final LogConfig CONFIG = LogConfig.defaults().withSegmentBytes(2048).withIndexIntervalBytes(128)
      .withMaxIndexSizeBytes(48);

  @TempDir
  Path root;

  /** What the log should hold. */
  private record ModelBatch(long baseOffset, long lastOffset, int sizeBytes) {}

  @Test
  void logMatchesASimpleModelUnderRandomOperations() throws Exception {
    for (int seed = 0; seed < SEEDS; seed++) {
      runSeed(seed, root.resolve("seed-" + seed));
    }
  }

  private void runSeed(long seed, Path dir) throws Exception {
    Random random = new Random(seed);
    List<String> records = new ArrayList<>();
    List<ModelBatch> batches = new ArrayList<>();
    Uuid topicId = Uuid.randomUuid();
    LogManager manager = new LogManager(List.of(dir), CONFIG);
    PartitionLog log = manager.getOrCreateLog(TP, topicId, CONFIG);
    try {
      for (int op = 0; op < OPS_PER_SEED; op++) {
        int dice = random.nextInt(100);
        String where = "seed " + seed + " op " + op;
        if (dice < 55) {
          appendRandom(log, random, records, batches, where);
        } else if (dice < 93) {
          readRandom(log, random, records, batches, where);
        } else {
          boolean crash = dice >= 97;
          manager.close();
          if (crash) {
            LogTestSupport.forgetCleanShutdown(List.of(dir));
            LogTestSupport.appendBytes(LogTestSupport.lastSegmentFile(log.dir()), randomBytes(random));
          }
          manager = new LogManager(List.of(dir), CONFIG);
          log = manager.getOrCreateLog(TP, topicId, CONFIG);
          assertThat(log.logEndOffset()).as(where + " after restart").isEqualTo(records.size());
        }
      }
      assertThat(LogTestSupport.readAll(log)).as("seed %d final contents", seed).isEqualTo(records);
    } finally {
      manager.close();
    }
  }

  private static void appendRandom(PartitionLog log, Random random, List<String> records, List<ModelBatch> batches,
      String where) {
    int batchCount = 1 + random.nextInt(3);
    ByteBuffer[] parts = new ByteBuffer[batchCount];
    List<Integer> counts = new ArrayList<>();
    for (int b = 0; b < batchCount; b++) {
      int count = 1 + random.nextInt(4);
      String prefix = "r" + records.size() + "b" + b;
      parts[b] = random.nextBoolean() ? TestBatches.batchOfSize(prefix, count, random.nextInt(120))
          : TestBatches.gzipBatch(prefix, count);
      counts.add(count);
    }
    ByteBuffer payload = TestBatches.concat(parts);
    AppendResult result = log.appendAsLeader(payload, 1, 0L);
    assertThat(result.baseOffset()).as(where).isEqualTo(records.size());
    for (int b = 0; b < batchCount; b++) {
      long base = records.size();
      batches.add(new ModelBatch(base, base + counts.get(b) - 1, parts[b].remaining()));
      for (int i = 0; i < counts.get(b); i++) {
        records.add(null);
      }
    }
    // the payload was patched in place, so decoding it yields the "offset:value" the log must return
    for (String record : TestBatches.offsetsAndValues(payload)) {
      records.set(Integer.parseInt(record.substring(0, record.indexOf(':'))), record);
    }
    assertThat(records).as(where).doesNotContainNull();
    assertThat(result.lastOffset()).as(where).isEqualTo(records.size() - 1);
  }

  private static void readRandom(PartitionLog log, Random random, List<String> records, List<ModelBatch> batches,
      String where) {
    long end = records.size();
    long fetchOffset = random.nextLong(end + 1);
    int maxBytes = 1 + random.nextInt(1500);
    long maxOffsetExclusive = random.nextLong(end + 2);
    boolean minOneBatch = random.nextBoolean();
    LogReadResult result = log.read(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
    List<MutableRecordBatch> got = TestBatches.batches(result.records());
    String context = where + " read(" + fetchOffset + ", " + maxBytes + ", " + maxOffsetExclusive + ", "
        + minOneBatch + ")";
    assertThat(result.logEndOffset()).as(context).isEqualTo(end);

    if (fetchOffset == end) {
      assertThat(got).as(context).isEmpty();
      return;
    }
    int first = indexOfBatchHolding(batches, fetchOffset);
    ModelBatch holding = batches.get(first);
    boolean firstAllowed = holding.baseOffset() < maxOffsetExclusive && (holding.sizeBytes() <= maxBytes || minOneBatch);
    assertThat(got.isEmpty()).as(context + " emptiness").isEqualTo(!firstAllowed);
    int totalBytes = 0;
    for (int i = 0; i < got.size(); i++) {
      ModelBatch expected = batches.get(first + i);
      MutableRecordBatch batch = got.get(i);
      assertThat(batch.baseOffset()).as(context).isEqualTo(expected.baseOffset());
      assertThat(batch.lastOffset()).as(context).isEqualTo(expected.lastOffset());
      assertThat(batch.baseOffset()).as(context).isLessThan(maxOffsetExclusive);
      totalBytes += batch.sizeInBytes();
    }
    if (got.size() > 1 || !minOneBatch) {
      assertThat(totalBytes).as(context + " bytes").isLessThanOrEqualTo(maxBytes);
    }
    List<String> values = TestBatches.offsetsAndValues(result.records());
    long from = got.isEmpty() ? 0 : got.get(0).baseOffset();
    assertThat(values).as(context).isEqualTo(records.subList((int) from, (int) from + values.size()));
  }

  private static int indexOfBatchHolding(List<ModelBatch> batches, long offset) {
    for (int i = 0; i < batches.size(); i++) {
      if (batches.get(i).baseOffset() <= offset && offset <= batches.get(i).lastOffset()) {
        return i;
      }
    }
    throw new AssertionError("model has no batch holding " + offset);
  }

  private static byte[] randomBytes(Random random) {
    byte[] garbage = new byte[1 + random.nextInt(200)];
    random.nextBytes(garbage);
    return garbage;
  }
}
