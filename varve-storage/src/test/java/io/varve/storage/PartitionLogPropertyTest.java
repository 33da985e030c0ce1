package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.checkpoint.OffsetCheckpointFile;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.SegmentFiles;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random operations on one partition log, checked after each step against a model that is just
 * the list of batches a reader must see plus the log start and end offsets: appends (plain, gzip,
 * idempotent, transactional, and COMMIT/ABORT markers from a coordinator, whose effect on the last stable
 * offset and the aborted-transaction index the model replays from its batch list), reads and zero-copy slices (whole batches, byte and offset limits, as many batches as fit),
 * lookups by time, rolls, retention by time (on a fake clock) and by size, DeleteRecords, delayed file
 * deletion, clean restarts, and crashes that truncate or garble the active segment (sometimes without a
 * recovery-point checkpoint, so every segment is re-validated). A failure names its seed; run one seed
 * alone with {@code -Dvarve.seed=N}.
 */
class PartitionLogPropertyTest {

    private static final int SEEDS = 200;
    private static final int OPS_PER_SEED = 60;
    private static final int EPOCH = 1;
    private static final TopicPartition TP = new TopicPartition("model", 0);
    private static final LogConfig CONFIG = LogConfig.builder()
            .segmentBytes(2048)
            .indexIntervalBytes(100)
            .maxIndexSizeBytes(96)
            .segmentMs(20_000)
            .fileDeleteDelayMs(1_000)
            .build();
    private static final LogManagerConfig MANAGER_CONFIG =
            LogManagerConfig.defaults().withoutBackgroundTasks();

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    /** Transactional producers (idempotent ones are 1 and 2). */
    private static final long[] TXN_PRODUCERS = {10, 11};

    /** What a batch is to transactions. */
    private enum TxnRole {
        NONE,
        DATA,
        COMMIT,
        ABORT
    }

    /** One batch as the model knows it: offsets, size, max timestamp, producer and its records "offset:value". */
    private record ModelBatch(
            long baseOffset,
            long lastOffset,
            int sizeBytes,
            long maxTimestampMs,
            long producerId,
            int lastSequence,
            List<String> records,
            TxnRole txnRole) {

        boolean isMarker() {
            return txnRole == TxnRole.COMMIT || txnRole == TxnRole.ABORT;
        }
    }

    /** Transactions replayed from the model's batches: the open ones' first offsets and every abort. */
    private record TxnModel(Map<Long, Long> openFirstOffsets, List<AbortedTxn> aborted) {

        static TxnModel replay(List<ModelBatch> history) {
            Map<Long, Long> open = new HashMap<>();
            List<AbortedTxn> aborted = new ArrayList<>();
            for (ModelBatch batch : history) {
                if (batch.txnRole() == TxnRole.DATA) {
                    open.putIfAbsent(batch.producerId(), batch.baseOffset());
                } else if (batch.isMarker()) {
                    Long first = open.remove(batch.producerId());
                    if (batch.txnRole() == TxnRole.ABORT) {
                        long stable = open.values().stream()
                                .mapToLong(Long::longValue)
                                .min()
                                .orElse(Long.MAX_VALUE);
                        aborted.add(new AbortedTxn(
                                batch.producerId(),
                                first == null ? batch.baseOffset() : first,
                                batch.baseOffset(),
                                Math.min(stable, batch.baseOffset() + 1)));
                    }
                }
            }
            return new TxnModel(open, aborted);
        }
    }

    @Test
    void logMatchesTheModelUnderRandomOperations() throws Exception {
        String only = System.getProperty("varve.seed");
        long first = only == null ? 0 : Long.parseLong(only);
        long last = only == null ? SEEDS - 1 : first;
        for (long seed = first; seed <= last; seed++) {
            Run run = new Run(seed, root.resolve("seed-" + seed));
            try {
                run.execute();
            } catch (Throwable t) {
                System.err.println(
                        "PartitionLogPropertyTest failed at seed " + seed + " (rerun with -Dvarve.seed=" + seed + ")");
                throw new AssertionError("seed " + seed + ", " + run.where + ": " + t.getMessage(), t);
            } finally {
                run.close();
            }
        }
    }

    /** One seed's log, model and fake clock. */
    private static final class Run {
        private final Random random;
        private final Path dir;
        private final Uuid topicId = Uuid.randomUuid();
        /** Every batch below the log end offset, deleted ones included (producer state outlives retention). */
        private final List<ModelBatch> history = new ArrayList<>();

        private long clockMs = 1_700_000_000_000L;
        private long logStartOffset;
        private long logEndOffset;
        /** Base offset of the first segment: batches below it were deleted by retention. */
        private long firstLiveOffset;

        private LogManager manager;
        private PartitionLog log;
        private String where = "start";

        Run(long seed, Path dir) {
            this.random = new Random(seed);
            this.dir = dir;
        }

        void execute() throws Exception {
            open();
            for (int op = 0; op < OPS_PER_SEED; op++) {
                int dice = random.nextInt(100);
                where = "op " + op;
                if (dice < 35) {
                    int kind = random.nextInt(10);
                    if (kind < 6) {
                        append();
                    } else if (kind < 8) {
                        appendTransactional();
                    } else {
                        appendMarker();
                    }
                } else if (dice < 43) {
                    clockMs += random.nextInt(5_000);
                } else if (dice < 63) {
                    checkRandomRead();
                    checkTimestampLookups();
                    checkAbortedTransactions();
                } else if (dice < 67) {
                    where += " roll";
                    log.roll();
                } else if (dice < 73) {
                    retentionByTime();
                } else if (dice < 79) {
                    retentionBySize();
                } else if (dice < 85) {
                    deleteRecords();
                } else if (dice < 88) {
                    where += " delete retired files";
                    log.deleteRetiredSegments(clockMs + random.nextInt(2_000));
                } else if (dice < 94) {
                    where += " clean restart";
                    manager.close();
                    open();
                } else {
                    crashAndRestart();
                }
                checkOffsets();
            }
            where = "final contents";
            assertThat(readAllBatches()).isEqualTo(liveRecordsFrom(logStartOffset));
        }

        private void open() {
            manager = new LogManager(List.of(dir), CONFIG, MANAGER_CONFIG, () -> clockMs);
            log = manager.getOrCreateLog(TP, topicId, CONFIG);
        }

        void close() {
            if (manager != null) {
                manager.close();
            }
        }

        private void append() {
            where += " append";
            int batchCount = 1 + random.nextInt(3);
            ByteBuffer[] parts = new ByteBuffer[batchCount];
            Map<Long, Integer> nextSequences = new HashMap<>();
            for (int b = 0; b < batchCount; b++) {
                long timestampMs = clockMs - random.nextInt(3_000);
                int count = 1 + random.nextInt(4);
                if (random.nextInt(10) < 3) {
                    long producerId = 1 + random.nextInt(2);
                    int sequence = nextSequences.computeIfAbsent(producerId, this::nextSequence);
                    parts[b] = TestBatches.idempotentAt(producerId, (short) 0, sequence, count, timestampMs);
                    nextSequences.put(producerId, sequence + count);
                } else {
                    parts[b] = TestBatches.batchAt(
                            "r" + logEndOffset + "b" + b,
                            count,
                            random.nextInt(100),
                            timestampMs,
                            random.nextInt(4) == 0);
                }
            }
            appendAndRecord(TestBatches.concat(parts), AppendOrigin.CLIENT, TxnRole.NONE);
        }

        /** A transactional batch of one of the transactional producers (starting its transaction if none is open). */
        private void appendTransactional() {
            long producerId = TXN_PRODUCERS[random.nextInt(TXN_PRODUCERS.length)];
            where += " transactional append of " + producerId;
            int count = 1 + random.nextInt(3);
            appendAndRecord(
                    TestBatches.transactionalAt(
                            producerId,
                            (short) 0,
                            nextSequence(producerId),
                            "t" + logEndOffset,
                            count,
                            clockMs - random.nextInt(3_000)),
                    AppendOrigin.CLIENT,
                    TxnRole.DATA);
        }

        /** A coordinator's COMMIT or ABORT marker, sometimes for a producer without an open transaction. */
        private void appendMarker() {
            long producerId = TXN_PRODUCERS[random.nextInt(TXN_PRODUCERS.length)];
            boolean commit = random.nextBoolean();
            where += (commit ? " commit of " : " abort of ") + producerId;
            appendAndRecord(
                    TestBatches.marker(producerId, (short) 0, 0, commit, clockMs - random.nextInt(3_000)),
                    AppendOrigin.COORDINATOR,
                    commit ? TxnRole.COMMIT : TxnRole.ABORT);
        }

        private void appendAndRecord(ByteBuffer payload, AppendOrigin origin, TxnRole role) {
            AppendResult result = log.appendAsLeader(payload, EPOCH, clockMs, origin);
            log.updateHighWatermark(log.logEndOffset());
            assertThat(result.baseOffset()).isEqualTo(logEndOffset);
            // the payload was patched in place: its batches are what the log must now hold
            for (MutableRecordBatch batch : TestBatches.batches(payload)) {
                history.add(new ModelBatch(
                        batch.baseOffset(),
                        batch.lastOffset(),
                        batch.sizeInBytes(),
                        batch.maxTimestamp(),
                        batch.producerId(),
                        batch.lastSequence(),
                        records(batch),
                        role));
                logEndOffset = batch.lastOffset() + 1;
            }
            assertThat(result.lastOffset()).isEqualTo(logEndOffset - 1);
        }

        /** The producer's last sequence + 1 among the data batches below the log end, or 0 (then any is accepted). */
        private int nextSequence(long producerId) {
            for (int i = history.size() - 1; i >= 0; i--) {
                if (history.get(i).producerId() == producerId && !history.get(i).isMarker()) {
                    return history.get(i).lastSequence() + 1;
                }
            }
            return 0;
        }

        private void checkRandomRead() throws Exception {
            long fetchOffset = logStartOffset + random.nextLong(logEndOffset - logStartOffset + 1);
            int maxBytes = random.nextInt(1_500);
            long maxOffsetExclusive = random.nextLong(logEndOffset + 2);
            boolean minOneBatch = random.nextBoolean();
            where += " read(" + fetchOffset + ", " + maxBytes + ", " + maxOffsetExclusive + ", " + minOneBatch + ")";
            LogReadResult read = log.read(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
            LogSlice slice = log.readSlice(fetchOffset, maxBytes, maxOffsetExclusive, minOneBatch);
            assertThat(sliceBytes(slice))
                    .as("slice and copy hold the same bytes")
                    .isEqualTo(read.records());
            assertThat(slice.lastStableOffset())
                    .as("slice's last stable offset")
                    .isEqualTo(expectedLastStableOffset());
            assertThat(read.logEndOffset()).isEqualTo(logEndOffset);
            assertThat(read.logStartOffset()).isEqualTo(logStartOffset);
            List<MutableRecordBatch> got = TestBatches.batches(read.records());
            if (fetchOffset == logEndOffset) {
                assertThat(got).isEmpty();
                return;
            }
            List<ModelBatch> live = liveBatches();
            int first = indexOfBatchHolding(live, fetchOffset);
            ModelBatch holding = live.get(first);
            boolean firstAllowed =
                    holding.baseOffset() < maxOffsetExclusive && (holding.sizeBytes() <= maxBytes || minOneBatch);
            assertThat(got.isEmpty()).as("emptiness").isEqualTo(!firstAllowed);
            int totalBytes = 0;
            for (int i = 0; i < got.size(); i++) {
                ModelBatch expected = live.get(first + i);
                assertThat(got.get(i).baseOffset()).isEqualTo(expected.baseOffset());
                assertThat(got.get(i).baseOffset()).isLessThan(maxOffsetExclusive);
                assertThat(records(got.get(i))).isEqualTo(expected.records());
                totalBytes += got.get(i).sizeInBytes();
            }
            assertThat(slice.nextOffset())
                    .as("offset after the slice")
                    .isEqualTo(
                            got.isEmpty()
                                    ? fetchOffset
                                    : got.get(got.size() - 1).nextOffset());
            if (got.size() > 1 || !minOneBatch) {
                assertThat(totalBytes).as("bytes").isLessThanOrEqualTo(maxBytes);
            }
            if (!got.isEmpty() && first + got.size() < live.size()) {
                ModelBatch next = live.get(first + got.size());
                boolean sameSegment = segmentOf(next.baseOffset()) == segmentOf(holding.baseOffset());
                boolean fits = totalBytes + next.sizeBytes() <= Math.max(maxBytes, holding.sizeBytes());
                assertThat(sameSegment && fits && next.baseOffset() < maxOffsetExclusive)
                        .as("the next batch %d would have fitted", next.baseOffset())
                        .isFalse();
            }
        }

        private void checkTimestampLookups() {
            List<ModelBatch> readable = liveBatches().stream()
                    .filter(b -> b.lastOffset() >= logStartOffset)
                    .toList();
            long target = clockMs - random.nextInt(10_000);
            where += " offsetForTimestamp(" + target + ")";
            Optional<TimestampAndOffset> expected = readable.stream()
                    .filter(b -> b.maxTimestampMs() >= target)
                    .findFirst()
                    .map(b -> new TimestampAndOffset(
                            b.maxTimestampMs(), Math.max(b.baseOffset(), logStartOffset), EPOCH));
            assertThat(log.offsetForTimestamp(target)).isEqualTo(expected);
            ModelBatch max = null;
            for (ModelBatch batch : readable) {
                if (max == null || batch.maxTimestampMs() > max.maxTimestampMs()) {
                    max = batch;
                }
            }
            Optional<TimestampAndOffset> expectedMax = Optional.ofNullable(max)
                    .map(b -> new TimestampAndOffset(b.maxTimestampMs(), b.lastOffset(), EPOCH));
            assertThat(log.maxTimestampAndOffset()).as("max timestamp").isEqualTo(expectedMax);
        }

        private void retentionByTime() throws Exception {
            long retentionMs = random.nextInt(8_000);
            where += " retention.ms=" + retentionMs;
            applyLogStartOffsetRetention();
            long firstBefore = firstLiveOffset;
            log.updateConfig(CONFIG.withRetentionMs(retentionMs));
            log.deleteOldSegments(clockMs);
            log.updateConfig(CONFIG);
            noteRetention();
            for (ModelBatch removed : batchesIn(firstBefore, firstLiveOffset)) {
                assertThat(removed.maxTimestampMs())
                        .as("deleted batch %d was expired", removed.baseOffset())
                        .isLessThan(clockMs - retentionMs);
            }
            List<ModelBatch> firstSegment = batchesIn(firstLiveOffset, segmentEnd(firstLiveOffset));
            if (!firstSegment.isEmpty()) {
                long maxTimestampMs = firstSegment.stream()
                        .mapToLong(ModelBatch::maxTimestampMs)
                        .max()
                        .getAsLong();
                assertThat(maxTimestampMs)
                        .as("first kept segment is not expired")
                        .isGreaterThanOrEqualTo(clockMs - retentionMs);
            }
        }

        private void retentionBySize() throws Exception {
            applyLogStartOffsetRetention();
            long sizeBytes =
                    liveBatches().stream().mapToLong(ModelBatch::sizeBytes).sum();
            assertThat(log.sizeBytes()).as("log size").isEqualTo(sizeBytes);
            long retentionBytes = random.nextLong(sizeBytes + 1);
            where += " retention.bytes=" + retentionBytes + " of " + sizeBytes;
            log.updateConfig(CONFIG.withRetentionBytes(retentionBytes));
            log.deleteOldSegments(clockMs);
            log.updateConfig(CONFIG);
            noteRetention();
            long keptBytes =
                    liveBatches().stream().mapToLong(ModelBatch::sizeBytes).sum();
            assertThat(log.sizeBytes()).isEqualTo(keptBytes);
            assertThat(keptBytes).as("never below retention.bytes").isGreaterThanOrEqualTo(retentionBytes);
            long firstSegmentBytes = batchesIn(firstLiveOffset, segmentEnd(firstLiveOffset)).stream()
                    .mapToLong(ModelBatch::sizeBytes)
                    .sum();
            if (firstSegmentBytes > 0) {
                assertThat(keptBytes - firstSegmentBytes)
                        .as("the first segment had to stay")
                        .isLessThan(retentionBytes);
            }
        }

        /** Retention with the default config only deletes segments wholly below the log start offset. */
        private void applyLogStartOffsetRetention() {
            log.deleteOldSegments(clockMs);
            noteRetention();
            List<Long> bases = log.segmentBaseOffsets();
            assertThat(bases.size() == 1 || bases.get(1) > logStartOffset)
                    .as("no segment wholly below the start")
                    .isTrue();
        }

        private void noteRetention() {
            long firstBase = log.segmentBaseOffsets().get(0);
            assertThat(firstBase).as("retention never moves backwards").isGreaterThanOrEqualTo(firstLiveOffset);
            firstLiveOffset = firstBase;
            logStartOffset = Math.max(logStartOffset, firstBase);
        }

        private void deleteRecords() {
            long target = random.nextInt(10) == 0
                    ? PartitionLog.HIGH_WATERMARK
                    : logStartOffset - 2 + random.nextLong(logEndOffset - logStartOffset + 5);
            where += " deleteRecordsBefore(" + target + ")";
            long effective = target == PartitionLog.HIGH_WATERMARK ? logEndOffset : target;
            if (effective < 0 || effective > logEndOffset) {
                assertThatThrownBy(() -> log.deleteRecordsBefore(target)).isInstanceOf(OffsetOutOfRangeException.class);
                return;
            }
            assertThat(log.deleteRecordsBefore(target)).isEqualTo(Math.max(logStartOffset, effective));
            logStartOffset = Math.max(logStartOffset, effective);
            noteRetention();
            List<Long> bases = log.segmentBaseOffsets();
            assertThat(bases.size() == 1 || bases.get(1) > logStartOffset)
                    .as("segments below the start deleted: %s, start %d, end %d", bases, logStartOffset, logEndOffset)
                    .isTrue();
        }

        private void crashAndRestart() throws Exception {
            where += " crash";
            long activeBase =
                    log.segmentBaseOffsets().get(log.segmentBaseOffsets().size() - 1);
            Path activeFile = SegmentFiles.logFile(log.dir(), activeBase);
            manager.close();
            LogTestSupport.forgetCleanShutdown(List.of(dir));
            if (random.nextInt(3) == 0) {
                where += " without recovery points";
                Files.delete(dir.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE));
            }
            long sizeBytes = Files.size(activeFile);
            long keptBytes = sizeBytes;
            if (random.nextBoolean()) {
                keptBytes = random.nextLong(sizeBytes + 1);
                where += " truncating the active segment " + activeBase + " to " + keptBytes + " of " + sizeBytes
                        + " bytes";
                LogTestSupport.truncate(activeFile, keptBytes);
            } else {
                byte[] garbage = new byte[1 + random.nextInt(200)];
                random.nextBytes(garbage);
                where += " with " + garbage.length + " garbage bytes";
                LogTestSupport.appendBytes(activeFile, garbage);
            }
            long end = activeBase;
            long position = 0;
            for (ModelBatch batch : batchesIn(activeBase, logEndOffset)) {
                position += batch.sizeBytes();
                if (position > keptBytes) {
                    break;
                }
                end = batch.lastOffset() + 1;
            }
            long survivingEnd = end;
            history.removeIf(batch -> batch.baseOffset() >= survivingEnd);
            logEndOffset = survivingEnd;
            logStartOffset = Math.min(logStartOffset, logEndOffset);
            open();
            assertThat(readAllBatches()).as("contents after recovery").isEqualTo(liveRecordsFrom(logStartOffset));
        }

        private long expectedLastStableOffset() {
            long firstOpen = TxnModel.replay(history).openFirstOffsets().values().stream()
                    .mapToLong(Long::longValue)
                    .min()
                    .orElse(Long.MAX_VALUE);
            return Math.max(Math.min(firstOpen, logEndOffset), logStartOffset);
        }

        /** A read_committed reader of a random range learns exactly the aborted transactions overlapping it. */
        private void checkAbortedTransactions() {
            long fetchOffset = logStartOffset + random.nextLong(logEndOffset - logStartOffset + 1);
            long upperBound = fetchOffset + random.nextLong(logEndOffset - fetchOffset + 2);
            where += " abortedTransactions(" + fetchOffset + ", " + upperBound + ")";
            List<AbortedTxn> expected = TxnModel.replay(history).aborted().stream()
                    .filter(txn -> fetchOffset < upperBound
                            && txn.lastOffset() >= fetchOffset
                            && txn.firstOffset() < upperBound)
                    .toList();
            assertThat(log.abortedTransactions(fetchOffset, upperBound)).isEqualTo(expected);
        }

        private void checkOffsets() {
            assertThat(log.lastStableOffset()).as("last stable offset").isEqualTo(expectedLastStableOffset());
            assertThat(log.logEndOffset()).as("log end offset").isEqualTo(logEndOffset);
            assertThat(log.logStartOffset()).as("log start offset").isEqualTo(logStartOffset);
            assertThat(log.highWatermark()).as("high watermark").isEqualTo(logEndOffset);
            assertThat(log.segmentBaseOffsets().get(0)).as("first segment").isEqualTo(firstLiveOffset);
        }

        private List<ModelBatch> liveBatches() {
            return batchesIn(firstLiveOffset, Long.MAX_VALUE);
        }

        private List<ModelBatch> batchesIn(long fromOffset, long toOffsetExclusive) {
            return history.stream()
                    .filter(b -> b.baseOffset() >= fromOffset && b.baseOffset() < toOffsetExclusive)
                    .toList();
        }

        private List<List<String>> liveRecordsFrom(long offset) {
            return liveBatches().stream()
                    .filter(b -> b.lastOffset() >= offset)
                    .map(ModelBatch::records)
                    .toList();
        }

        /** The end of the segment starting at {@code baseOffset}: the next segment's base or the log end. */
        private long segmentEnd(long baseOffset) {
            return log.segmentBaseOffsets().stream()
                    .filter(base -> base > baseOffset)
                    .findFirst()
                    .orElse(logEndOffset);
        }

        private long segmentOf(long offset) {
            long found = -1;
            for (long base : log.segmentBaseOffsets()) {
                if (base <= offset) {
                    found = base;
                }
            }
            return found;
        }

        private List<List<String>> readAllBatches() {
            List<List<String>> all = new ArrayList<>();
            long next = log.logStartOffset();
            for (int guard = 0; next < log.logEndOffset(); guard++) {
                assertThat(guard).as("reads make progress").isLessThan(100_000);
                List<MutableRecordBatch> batches = TestBatches.batches(
                        log.read(next, 1, Long.MAX_VALUE, true).records());
                assertThat(batches).as("read at %d", next).isNotEmpty();
                for (MutableRecordBatch batch : batches) {
                    batch.ensureValid();
                    all.add(records(batch));
                    next = batch.nextOffset();
                }
            }
            return all;
        }

        private static ByteBuffer sliceBytes(LogSlice slice) throws Exception {
            ByteBuffer bytes = ByteBuffer.allocate(slice.sizeBytes());
            if (slice.sizeBytes() > 0) {
                long at = slice.position();
                while (bytes.hasRemaining()) {
                    at += slice.channel().read(bytes, at);
                }
            }
            return bytes.flip();
        }

        private static int indexOfBatchHolding(List<ModelBatch> batches, long offset) {
            for (int i = 0; i < batches.size(); i++) {
                if (batches.get(i).baseOffset() <= offset
                        && offset <= batches.get(i).lastOffset()) {
                    return i;
                }
            }
            throw new AssertionError("model has no batch holding " + offset);
        }
    }

    private static List<String> records(MutableRecordBatch batch) {
        List<String> out = new ArrayList<>();
        for (Record record : batch) {
            out.add(record.offset() + ":" + StandardCharsets.UTF_8.decode(record.value()));
        }
        return out;
    }
}
