package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.storage.checkpoint.OffsetCheckpointFile;
import io.varve.storage.epoch.EpochEndOffset;
import io.varve.storage.producer.ProducerStateEntry;
import io.varve.storage.segment.AbortedTxn;
import io.varve.storage.segment.SegmentFiles;
import java.nio.ByteBuffer;
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
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random operations on a follower's log, checked after each step against a model that is the list of
 * batches the follower holds plus its offsets: follower appends of batch sets built as a leader would (plain,
 * idempotent, transactional batches and COMMIT/ABORT markers, leader epochs that grow, gaps left by compaction,
 * sets cut short by a fetch's byte limit), high-watermark moves, truncations to random offsets (some crashing before
 * one of their durable steps: the reloaded log is a prefix of the old one whose epochs match its batches, and the
 * follower truncates again), full truncations, endOffsetForEpoch queries, rolls, clean restarts and crashes (some with a torn tail, some without a
 * recovery-point checkpoint). The model derives the epoch lineage, the last stable offset, the aborted
 * transactions and each idempotent producer's last sequence from its batches; a promoted follower must answer a
 * retry of a producer's last batch as a duplicate. A failure names its seed; run one seed alone with
 * {@code -Dvarve.seed=N}.
 */
class FollowerLogPropertyTest {

    private static final int SEEDS = 150;
    private static final int OPS_PER_SEED = 50;
    private static final TopicPartition TP = new TopicPartition("follower", 0);
    private static final LogConfig CONFIG = LogConfig.builder()
            .segmentBytes(1500)
            .indexIntervalBytes(100)
            .maxIndexSizeBytes(96)
            .fileDeleteDelayMs(1_000)
            .build();
    private static final LogManagerConfig MANAGER_CONFIG =
            LogManagerConfig.defaults().withoutBackgroundTasks();
    private static final long[] IDEMPOTENT_PRODUCERS = {1, 2};
    private static final long[] TXN_PRODUCERS = {10, 11};

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    private enum Kind {
        PLAIN,
        IDEMPOTENT,
        TXN_DATA,
        COMMIT,
        ABORT
    }

    /** One batch as the model knows it. */
    private record ModelBatch(long baseOffset, long lastOffset, int epoch, Kind kind, long producerId, int lastSeq) {
        boolean isMarker() {
            return kind == Kind.COMMIT || kind == Kind.ABORT;
        }
    }

    @Test
    void followerLogMatchesTheModelUnderRandomAppendsTruncationsAndRestarts() throws Exception {
        String only = System.getProperty("varve.seed");
        long first = only == null ? 0 : Long.parseLong(only);
        long last = only == null ? SEEDS - 1 : first;
        for (long seed = first; seed <= last; seed++) {
            Run run = new Run(seed, root.resolve("seed-" + seed));
            try {
                run.execute();
            } catch (Throwable t) {
                System.err.println(
                        "FollowerLogPropertyTest failed at seed " + seed + " (rerun with -Dvarve.seed=" + seed + ")");
                throw new AssertionError("seed " + seed + ", " + run.where + ": " + t.getMessage(), t);
            } finally {
                run.close();
            }
        }
    }

    private static final class Run {
        private final Random random;
        private final Path dir;
        private final Uuid topicId = Uuid.randomUuid();
        private final List<ModelBatch> batches = new ArrayList<>();
        private long clockMs = 1_700_000_000_000L;
        /** Where the log's first segment starts: 0, or the offset of the last full truncation. */
        private long firstSegmentBase;

        private long logStartOffset;
        private long logEndOffset;
        private long highWatermark;
        private int leaderEpoch = 1;
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
                if (dice < 40) {
                    followerAppend();
                } else if (dice < 50) {
                    moveHighWatermark();
                } else if (dice < 58) {
                    truncate();
                } else if (dice < 62) {
                    truncateThroughACrash();
                } else if (dice < 65) {
                    truncateFully();
                } else if (dice < 75) {
                    checkEndOffsets();
                } else if (dice < 80) {
                    where += " roll";
                    log.roll();
                } else if (dice < 85) {
                    promotedFollowerDeduplicatesARetry();
                } else if (dice < 92) {
                    where += " clean restart";
                    manager.close();
                    open();
                } else {
                    crashAndRestart();
                }
                checkState();
            }
            where = "final";
            checkEndOffsets();
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

        /** A leader's batch set from the log end (sometimes past a gap), sometimes cut by the fetch's byte limit. */
        private void followerAppend() {
            if (random.nextInt(6) == 0) {
                leaderEpoch += 1 + random.nextInt(2);
            }
            int count = 1 + random.nextInt(3);
            List<ByteBuffer> parts = new ArrayList<>();
            List<ModelBatch> appended = new ArrayList<>();
            long next = logEndOffset;
            Map<Long, Integer> sequences = new HashMap<>();
            for (int b = 0; b < count; b++) {
                if (random.nextInt(5) == 0) {
                    next += 1 + random.nextInt(4); // compaction left a gap on the leader
                }
                long timestampMs = clockMs - random.nextInt(3_000);
                int dice = random.nextInt(10);
                ByteBuffer batch;
                Kind kind;
                long producerId = -1;
                int lastSeq = -1;
                int records = 1 + random.nextInt(3);
                if (dice < 4) {
                    kind = Kind.PLAIN;
                    batch = TestBatches.batchAt("r" + next, records, random.nextInt(60), timestampMs, false);
                } else if (dice < 6) {
                    kind = Kind.IDEMPOTENT;
                    producerId = IDEMPOTENT_PRODUCERS[random.nextInt(IDEMPOTENT_PRODUCERS.length)];
                    int sequence = sequences.computeIfAbsent(producerId, p -> lastSequence(p, appended) + 1);
                    batch = TestBatches.idempotentAt(producerId, (short) 0, sequence, records, timestampMs);
                    lastSeq = sequence + records - 1;
                    sequences.put(producerId, lastSeq + 1);
                } else if (dice < 8) {
                    kind = Kind.TXN_DATA;
                    producerId = TXN_PRODUCERS[random.nextInt(TXN_PRODUCERS.length)];
                    int sequence = sequences.computeIfAbsent(producerId, p -> lastSequence(p, appended) + 1);
                    batch = TestBatches.transactionalAt(
                            producerId, (short) 0, sequence, "t" + next, records, timestampMs);
                    lastSeq = sequence + records - 1;
                    sequences.put(producerId, lastSeq + 1);
                } else {
                    producerId = TXN_PRODUCERS[random.nextInt(TXN_PRODUCERS.length)];
                    boolean commit = random.nextBoolean();
                    kind = commit ? Kind.COMMIT : Kind.ABORT;
                    batch = TestBatches.marker(producerId, (short) 0, 0, commit, timestampMs);
                }
                ByteBuffer replicated = TestBatches.asReplicated(batch, next, leaderEpoch);
                MutableRecordBatch parsed = TestBatches.batches(replicated).get(0);
                parts.add(replicated);
                appended.add(new ModelBatch(
                        parsed.baseOffset(), parsed.lastOffset(), leaderEpoch, kind, producerId, lastSeq));
                next = parsed.nextOffset();
            }
            ByteBuffer set = TestBatches.concat(parts.toArray(ByteBuffer[]::new));
            int wholeBatches = appended.size();
            if (random.nextInt(4) == 0) {
                int lastBytes = parts.get(parts.size() - 1).remaining();
                set.limit(set.limit() - 1 - random.nextInt(lastBytes));
                wholeBatches--;
            }
            where += " follower append of " + appended.subList(0, wholeBatches) + " (" + appended.size() + " sent)";
            FollowerAppendResult result = log.appendAsFollower(set);
            assertThat(result.batchCount()).as("batches appended").isEqualTo(wholeBatches);
            int expectedBytes = 0;
            for (int i = 0; i < wholeBatches; i++) {
                expectedBytes += parts.get(i).remaining();
            }
            assertThat(result.validBytes()).as("bytes used").isEqualTo(expectedBytes);
            batches.addAll(appended.subList(0, wholeBatches));
            if (wholeBatches > 0) {
                logEndOffset = appended.get(wholeBatches - 1).lastOffset() + 1;
            }
        }

        /** The producer's last sequence in the model (among {@code pending} then the log), or -1. */
        private int lastSequence(long producerId, List<ModelBatch> pending) {
            for (List<ModelBatch> list : List.of(pending, batches)) {
                for (int i = list.size() - 1; i >= 0; i--) {
                    ModelBatch batch = list.get(i);
                    if (batch.producerId() == producerId && !batch.isMarker()) {
                        return batch.lastSeq();
                    }
                }
            }
            return -1;
        }

        private void moveHighWatermark() {
            long target = random.nextLong(logEndOffset + 3);
            where += " updateHighWatermark(" + target + ")";
            log.updateHighWatermark(target);
            highWatermark = Math.max(highWatermark, Math.max(logStartOffset, Math.min(target, logEndOffset)));
        }

        private void truncate() {
            long offset = random.nextLong(logEndOffset + 3);
            where += " truncateTo(" + offset + ") of [" + logStartOffset + ", " + logEndOffset + ")";
            boolean changed = log.truncateTo(offset);
            assertThat(changed).as("truncated").isEqualTo(offset < logEndOffset);
            applyTruncation(offset);
        }

        /** The model's side of {@code truncateTo(offset)}. */
        private void applyTruncation(long offset) {
            if (offset >= logEndOffset) {
                return;
            }
            if (offset < firstSegmentBase) {
                startAt(offset);
                return;
            }
            batches.removeIf(batch -> batch.lastOffset() >= offset);
            logEndOffset = batches.isEmpty()
                    ? firstSegmentBase
                    : Math.max(firstSegmentBase, batches.get(batches.size() - 1).lastOffset() + 1);
            highWatermark = Math.min(highWatermark, logEndOffset);
            logStartOffset = Math.min(logStartOffset, logEndOffset);
        }

        /**
         * A truncation that crashes before one of its durable steps (or completes, when it has fewer): the reloaded
         * log must be a prefix of the old one no shorter than the truncation's end, and the follower truncates again.
         */
        private void truncateThroughACrash() throws Exception {
            long offset = random.nextLong(logEndOffset + 1);
            int crashAtStep = random.nextInt(6);
            where += " truncateTo(" + offset + ") crashing before step " + crashAtStep;
            List<List<Long>> before = readBatches();
            int[] steps = {0};
            log.injectStepFaults(step -> {
                if (steps[0]++ == crashAtStep) {
                    throw new java.io.IOException("crash before " + step);
                }
            });
            boolean crashed = false;
            try {
                log.truncateTo(offset);
            } catch (RuntimeException e) {
                crashed = true;
            }
            log.injectStepFaults(StepFaults.NONE);
            if (crashed) {
                manager.close(); // the dir failed: not marked clean, so the next start recovers it
                open();
                List<List<Long>> reloaded = readBatches();
                assertThat(reloaded).as("a prefix of the log before").isEqualTo(before.subList(0, reloaded.size()));
                assertThat(log.leaderEpochEntries())
                        .as("epochs of the reloaded batches")
                        .isEqualTo(epochsOf(reloaded));
                assertThat(log.highWatermark()).isLessThanOrEqualTo(log.logEndOffset());
                if (offset < firstSegmentBase) {
                    // it was a full truncation, which may have loaded as an empty log at 0: the follower's next
                    // fetch is out of its leader's range and it starts afresh again
                    log.truncateFullyAndStartAt(offset);
                } else {
                    log.truncateTo(offset);
                }
            }
            applyTruncation(offset);
            if (crashed) {
                // the failed dir was not checkpointed at close: the high watermark is the last checkpoint's, which a
                // truncation rewrites, so it is never above the model's
                assertThat(log.highWatermark())
                        .as("high watermark after the crash")
                        .isLessThanOrEqualTo(highWatermark);
                highWatermark = log.highWatermark();
            }
        }

        private static List<EpochEntry> epochsOf(List<List<Long>> read) {
            List<EpochEntry> entries = new ArrayList<>();
            for (List<Long> batch : read) {
                int epoch = batch.get(2).intValue();
                if (entries.isEmpty() || entries.get(entries.size() - 1).epoch() < epoch) {
                    entries.add(new EpochEntry(epoch, batch.get(0)));
                }
            }
            return entries;
        }

        private void truncateFully() {
            long offset = Math.max(0, logEndOffset - 5 + random.nextInt(25));
            where += " truncateFullyAndStartAt(" + offset + ")";
            log.truncateFullyAndStartAt(offset);
            startAt(offset);
        }

        private void startAt(long offset) {
            batches.clear();
            firstSegmentBase = offset;
            logStartOffset = offset;
            logEndOffset = offset;
            highWatermark = offset;
        }

        /** A follower that becomes leader answers a retry of a producer's last batch with its original offsets. */
        private void promotedFollowerDeduplicatesARetry() {
            long producerId = IDEMPOTENT_PRODUCERS[random.nextInt(IDEMPOTENT_PRODUCERS.length)];
            ModelBatch lastBatch = null;
            for (ModelBatch batch : batches) {
                if (batch.producerId() == producerId) {
                    lastBatch = batch;
                }
            }
            if (lastBatch == null) {
                return;
            }
            int records = (int) (lastBatch.lastOffset() - lastBatch.baseOffset() + 1);
            int firstSeq = lastBatch.lastSeq() - records + 1;
            where += " retry as leader of producer " + producerId + " seq " + firstSeq + ".." + lastBatch.lastSeq();
            AppendResult result = log.appendAsLeader(
                    TestBatches.idempotentAt(producerId, (short) 0, firstSeq, records, clockMs), leaderEpoch, clockMs);
            assertThat(result.duplicate()).as("a duplicate").isTrue();
            assertThat(result.baseOffset()).isEqualTo(lastBatch.baseOffset());
            assertThat(result.lastOffset()).isEqualTo(lastBatch.lastOffset());
        }

        private void crashAndRestart() throws Exception {
            where += " crash";
            List<Long> bases = log.segmentBaseOffsets();
            Path activeFile = SegmentFiles.logFile(log.dir(), bases.get(bases.size() - 1));
            manager.close();
            LogTestSupport.forgetCleanShutdown(List.of(dir));
            if (random.nextInt(3) == 0) {
                where += " without recovery points";
                Files.delete(dir.resolve(OffsetCheckpointFile.RECOVERY_POINT_FILE));
            }
            if (random.nextBoolean()) {
                byte[] garbage = new byte[1 + random.nextInt(100)];
                random.nextBytes(garbage);
                where += " with a torn tail of " + garbage.length + " bytes";
                LogTestSupport.appendBytes(activeFile, garbage);
            }
            open();
        }

        /** The epoch lineage the batches tell: each epoch that grows starts at its first batch. */
        private List<EpochEntry> epochs() {
            List<EpochEntry> entries = new ArrayList<>();
            for (ModelBatch batch : batches) {
                if (entries.isEmpty() || entries.get(entries.size() - 1).epoch() < batch.epoch()) {
                    entries.add(new EpochEntry(batch.epoch(), batch.baseOffset()));
                }
            }
            return entries;
        }

        /** Kafka's answer, computed over the model's lineage. */
        private Optional<EpochEndOffset> expectedEndOffset(int epoch) {
            List<EpochEntry> entries = epochs();
            if (epoch < 0
                    || entries.isEmpty()
                    || epoch > entries.get(entries.size() - 1).epoch()) {
                return Optional.empty();
            }
            if (epoch == entries.get(entries.size() - 1).epoch()) {
                return Optional.of(new EpochEndOffset(epoch, logEndOffset));
            }
            EntryPair pair = EntryPair.around(entries, epoch);
            return Optional.of(new EpochEndOffset(
                    pair.floor() == null ? epoch : pair.floor().epoch(),
                    pair.higher().startOffset()));
        }

        private void checkEndOffsets() {
            int maxEpoch = leaderEpoch + 2;
            for (int epoch = -1; epoch <= maxEpoch; epoch++) {
                assertThat(log.endOffsetForEpoch(epoch))
                        .as("endOffsetForEpoch(%d) with epochs %s", epoch, epochs())
                        .isEqualTo(expectedEndOffset(epoch));
            }
        }

        private record TxnModel(Map<Long, Long> open, List<AbortedTxn> aborted) {}

        private TxnModel txnModel() {
            Map<Long, Long> open = new HashMap<>();
            List<AbortedTxn> aborted = new ArrayList<>();
            for (ModelBatch batch : batches) {
                if (batch.kind() == Kind.TXN_DATA) {
                    open.putIfAbsent(batch.producerId(), batch.baseOffset());
                } else if (batch.isMarker()) {
                    Long first = open.remove(batch.producerId());
                    if (batch.kind() == Kind.ABORT) {
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

        private void checkState() {
            assertThat(log.logEndOffset()).as("log end offset").isEqualTo(logEndOffset);
            assertThat(log.logStartOffset()).as("log start offset").isEqualTo(logStartOffset);
            assertThat(log.highWatermark()).as("high watermark").isEqualTo(highWatermark);
            assertThat(log.leaderEpochEntries()).as("epochs").isEqualTo(epochs());
            TxnModel txns = txnModel();
            long firstOpen = txns.open().values().stream()
                    .mapToLong(Long::longValue)
                    .min()
                    .orElse(-1);
            long stable = firstOpen < 0 ? highWatermark : Math.min(firstOpen, highWatermark);
            assertThat(log.lastStableOffset())
                    .as("last stable offset")
                    .isEqualTo(Math.max(stable, Math.min(logStartOffset, highWatermark)));
            assertThat(log.abortedTransactions(logStartOffset, logEndOffset))
                    .as("aborted transactions")
                    .isEqualTo(txns.aborted().stream()
                            .filter(t -> logStartOffset < logEndOffset && t.lastOffset() >= logStartOffset)
                            .toList());
            Map<Long, ProducerStateEntry> producers = log.producerStates();
            for (long producerId : IDEMPOTENT_PRODUCERS) {
                int lastSeq = lastSequence(producerId, List.of());
                if (lastSeq < 0) {
                    assertThat(producers).as("producer %d", producerId).doesNotContainKey(producerId);
                } else {
                    assertThat(producers.get(producerId).lastSequence())
                            .as("producer %d's last sequence", producerId)
                            .contains(lastSeq);
                }
            }
            assertThat(readBatches())
                    .as("batches")
                    .isEqualTo(batches.stream()
                            .map(b -> List.of(b.baseOffset(), b.lastOffset(), (long) b.epoch()))
                            .toList());
        }

        private List<List<Long>> readBatches() {
            List<List<Long>> all = new ArrayList<>();
            long next = log.logStartOffset();
            for (int guard = 0; next < log.logEndOffset(); guard++) {
                assertThat(guard).as("reads make progress").isLessThan(100_000);
                ByteBuffer records = log.read(next, 1, Long.MAX_VALUE, true).records();
                List<MutableRecordBatch> read = TestBatches.batches(records);
                if (read.isEmpty()) {
                    break; // only a gap is left before the log end
                }
                for (MutableRecordBatch batch : read) {
                    batch.ensureValid();
                    all.add(List.of(batch.baseOffset(), batch.lastOffset(), (long) batch.partitionLeaderEpoch()));
                    next = batch.nextOffset();
                }
            }
            return all;
        }
    }

    /** The cached entries just at or below and just above an epoch that is not the latest. */
    private record EntryPair(EpochEntry floor, EpochEntry higher) {
        static EntryPair around(List<EpochEntry> entries, int epoch) {
            EpochEntry floor = null;
            for (EpochEntry entry : entries) {
                if (entry.epoch() > epoch) {
                    return new EntryPair(floor, entry);
                }
                floor = entry;
            }
            throw new AssertionError("no epoch above " + epoch + " in " + entries);
        }
    }
}
