package io.varve.storage.cleaner;

import static org.assertj.core.api.Assertions.assertThat;

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
import io.varve.storage.producer.BatchMetadata;
import io.varve.storage.producer.ProducerStateEntry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded random appends of keyed records (tombstones, gzip batches, idempotent producers, transactions that a
 * coordinator's markers commit or abort) into a compacted log, random rolls, cleaner runs on a fake clock (chosen by dirtiness or forced, with map memory sometimes
 * too small for the dirty keys), clean and unclean restarts (sometimes losing the producer snapshots).
 * After every step a reader from the log start must see, with C the cleaner checkpoint: offsets strictly
 * increasing, each record exactly as appended; below C at most the latest record of each key, always the
 * latest with a value, and no tombstone whose delete horizon had passed at a later pass; from C on, every
 * record appended but aborted ones (which may go). Aborted records never lie below C, never shadow a key, and
 * whatever of them is still read is covered by an aborted transaction of the index; a marker stays while data of
 * its transaction is read; the last stable offset is the oldest open transaction's first offset. Producer
 * state must match the model after every restart. A failure names its seed; run
 * one seed alone with {@code -Dvarve.seed=N}.
 */
class CompactionPropertyTest {

    private static final int SEEDS = 60;
    private static final int OPS_PER_SEED = 80;
    private static final int KEYS = 12;
    private static final long DELETE_RETENTION_MS = 5_000;
    private static final TopicPartition TP = new TopicPartition("compacted", 0);
    private static final long[] TXN_PRODUCERS = {10, 11};

    @TempDir(factory = TmpfsTempDirFactory.class)
    Path root;

    @Test
    void aReaderSeesTheLatestValuePerKeyBelowTheCheckpointAndEverythingAfterIt() throws Exception {
        String only = System.getProperty("varve.seed");
        long first = only == null ? 0 : Long.parseLong(only);
        long last = only == null ? SEEDS - 1 : first;
        for (long seed = first; seed <= last; seed++) {
            Run run = new Run(seed, root.resolve("seed-" + seed));
            try {
                run.execute();
            } catch (Throwable t) {
                System.err.println(
                        "CompactionPropertyTest failed at seed " + seed + " (rerun with -Dvarve.seed=" + seed + ")");
                throw new AssertionError("seed " + seed + ", " + run.where + ": " + t.getMessage(), t);
            } finally {
                run.close();
            }
        }
    }

    /** A producer as the model knows it. */
    private record ModelProducer(long producerId, int nextSequence) {}

    private static final class Run {
        private final Random random;
        private final Path dir;
        private final LogConfig config;
        private final CleanerConfig cleanerConfig;
        private long clockMs = 1_700_000_000_000L;
        private LogManager manager;
        private PartitionLog log;
        /** Every record appended, by offset: what a reader of the dirty part must see. */
        private final Map<Long, Rec> appended = new LinkedHashMap<>();
        /** Per tombstone offset, the time of the first pass whose mapped range covered it. */
        private final Map<Long, Long> tombstoneFirstCleanedMs = new HashMap<>();

        private final List<Long> passTimesMs = new ArrayList<>();
        private final Map<Long, ModelProducer> producers = new HashMap<>();
        /** Transactional producers: next sequence, the record offsets of the open transaction. */
        private final Map<Long, Integer> txnSequences = new HashMap<>();

        private final Map<Long, List<Long>> openTxnOffsets = new HashMap<>();
        private final Set<Long> abortedOffsets = new HashSet<>();
        /** Each record of an ended transaction, to its marker's offset. */
        private final Map<Long, Long> markerOfRecord = new HashMap<>();

        private long checkpoint;
        private String where = "start";

        Run(long seed, Path dir) {
            this.random = new Random(seed);
            this.dir = dir;
            this.config = LogConfig.builder()
                    .cleanupPolicy(Set.of(CleanupPolicy.COMPACT))
                    .segmentBytes(1024 + random.nextInt(2048))
                    .indexIntervalBytes(100)
                    .deleteRetentionMs(DELETE_RETENTION_MS)
                    .fileDeleteDelayMs(0)
                    .minCleanableDirtyRatio(random.nextInt(4) * 0.2)
                    .minCompactionLagMs(random.nextBoolean() ? 0 : 2_000)
                    .build();
            // sometimes too little map memory for all dirty keys, so passes clean prefixes
            long dedupeBytes =
                    random.nextBoolean() ? 1024 * 1024 : (6 + random.nextInt(20)) * KeyOffsetMap.BYTES_PER_ENTRY;
            this.cleanerConfig = new CleanerConfig(true, 1, 1000, dedupeBytes);
        }

        void execute() throws Exception {
            open();
            log = manager.getOrCreateLog(TP, Uuid.randomUuid(), config);
            for (int op = 0; op < OPS_PER_SEED; op++) {
                int dice = random.nextInt(100);
                if (dice < 36) {
                    append();
                } else if (dice < 45) {
                    appendTransactional();
                } else if (dice < 50) {
                    appendMarker();
                } else if (dice < 58) {
                    where = "op " + op + " roll";
                    LogTestAccess.roll(log);
                } else if (dice < 66) {
                    clockMs += random.nextInt(4_000);
                    where = "op " + op + " retention pass at " + clockMs;
                    manager.runRetention(clockMs);
                } else if (dice < 90) {
                    clean(op);
                } else if (dice < 95) {
                    where = "op " + op + " clean restart";
                    restart(false, false);
                } else {
                    boolean loseSnapshots = random.nextBoolean();
                    where = "op " + op + " crash" + (loseSnapshots ? " losing producer snapshots" : "");
                    restart(true, loseSnapshots);
                }
                verify();
            }
        }

        private void open() {
            manager = new LogManager(
                    List.of(dir),
                    config,
                    LogManagerConfig.defaults().withoutBackgroundTasks().withCleaner(cleanerConfig),
                    () -> clockMs);
        }

        private void append() {
            clockMs += random.nextInt(500);
            int count = 1 + random.nextInt(5);
            String[] keyValues = new String[count];
            for (int i = 0; i < count; i++) {
                String key = "k" + random.nextInt(KEYS);
                keyValues[i] = key + "=" + (random.nextInt(100) < 15 ? "" : "v" + (log.logEndOffset() + i));
            }
            ByteBuffer batch;
            Optional<ModelProducer> producer = Optional.empty();
            if (random.nextInt(100) < 25) {
                long producerId = 1 + random.nextInt(2);
                ModelProducer current = producers.getOrDefault(producerId, new ModelProducer(producerId, 0));
                batch = MemoryRecords.withIdempotentRecords(
                                Compression.NONE,
                                producerId,
                                (short) 0,
                                current.nextSequence(),
                                KeyedBatches.records(clockMs, keyValues))
                        .buffer();
                producer = Optional.of(new ModelProducer(producerId, current.nextSequence() + count));
            } else {
                batch = KeyedBatches.batch(
                        random.nextInt(100) < 30 ? Compression.gzip().build() : Compression.NONE, clockMs, keyValues);
            }
            long base = log.logEndOffset();
            where = "append at " + base + " of " + String.join(",", keyValues);
            log.appendAsLeader(batch, 0, clockMs);
            log.updateHighWatermark(log.logEndOffset());
            producer.ifPresent(p -> producers.put(p.producerId(), p));
            for (int i = 0; i < count; i++) {
                String[] kv = keyValues[i].split("=", -1);
                appended.put(base + i, new Rec(base + i, kv[0], kv[1].isEmpty() ? null : kv[1]));
            }
        }

        private String[] keyValues(int count) {
            String[] keyValues = new String[count];
            for (int i = 0; i < count; i++) {
                String key = "k" + random.nextInt(KEYS);
                keyValues[i] = key + "=" + (random.nextInt(100) < 15 ? "" : "v" + (log.logEndOffset() + i));
            }
            return keyValues;
        }

        private void appendTransactional() {
            clockMs += random.nextInt(500);
            long producerId = TXN_PRODUCERS[random.nextInt(TXN_PRODUCERS.length)];
            int count = 1 + random.nextInt(4);
            String[] keyValues = keyValues(count);
            int sequence = txnSequences.getOrDefault(producerId, 0);
            long base = log.logEndOffset();
            where = "transactional append of " + producerId + " at " + base + " of " + String.join(",", keyValues);
            log.appendAsLeader(
                    KeyedBatches.transactional(producerId, (short) 0, sequence, clockMs, keyValues), 0, clockMs);
            log.updateHighWatermark(log.logEndOffset());
            txnSequences.put(producerId, sequence + count);
            for (int i = 0; i < count; i++) {
                String[] kv = keyValues[i].split("=", -1);
                appended.put(base + i, new Rec(base + i, kv[0], kv[1].isEmpty() ? null : kv[1]));
                openTxnOffsets
                        .computeIfAbsent(producerId, p -> new ArrayList<>())
                        .add(base + i);
            }
        }

        private void appendMarker() {
            clockMs += random.nextInt(500);
            long producerId = TXN_PRODUCERS[random.nextInt(TXN_PRODUCERS.length)];
            boolean commit = random.nextBoolean();
            long offset = log.logEndOffset();
            where = (commit ? "commit" : "abort") + " of " + producerId + " at " + offset;
            log.appendAsLeader(
                    TestBatches.marker(producerId, (short) 0, 0, commit, clockMs),
                    0,
                    clockMs,
                    AppendOrigin.COORDINATOR);
            log.updateHighWatermark(log.logEndOffset());
            for (long record : openTxnOffsets.getOrDefault(producerId, List.of())) {
                markerOfRecord.put(record, offset);
                if (!commit) {
                    abortedOffsets.add(record);
                }
            }
            openTxnOffsets.remove(producerId);
        }

        private void clean(int op) {
            boolean forced = random.nextBoolean();
            where = "op " + op + (forced ? " forced" : "") + " cleaner run at " + clockMs;
            Optional<CleaningResult> result =
                    forced ? manager.cleaner().clean(log, clockMs) : manager.runCleaner(clockMs);
            if (result.isEmpty()) {
                return;
            }
            long end = result.get().endOffset();
            assertThat(end).as("checkpoint moves forward").isGreaterThanOrEqualTo(checkpoint);
            assertThat(result.get().firstDirtyOffset()).isEqualTo(checkpoint);
            checkpoint = end;
            passTimesMs.add(clockMs);
            appended.values().stream()
                    .filter(r -> r.value() == null && r.offset() < end)
                    .forEach(r -> tombstoneFirstCleanedMs.putIfAbsent(r.offset(), clockMs));
        }

        private void restart(boolean crash, boolean loseSnapshots) throws IOException {
            manager.close();
            if (crash) {
                Files.delete(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE));
                if (loseSnapshots) {
                    try (Stream<Path> files = Files.list(dir.resolve("compacted-0"))) {
                        for (Path snapshot : files.filter(f -> f.toString().endsWith(".snapshot"))
                                .toList()) {
                            Files.delete(snapshot);
                        }
                    }
                }
            }
            open();
            log = manager.getLog(TP).orElseThrow();
            for (ModelProducer producer : producers.values()) {
                ProducerStateEntry entry = log.producerStates().get(producer.producerId());
                assertThat(entry)
                        .as("state of producer %d after restart", producer.producerId())
                        .isNotNull();
                List<BatchMetadata> batches = entry.batches();
                assertThat(batches.get(batches.size() - 1).lastSeq()).isEqualTo(producer.nextSequence() - 1);
            }
        }

        private void verify() {
            List<MutableRecordBatch> batches = KeyedBatches.readBatches(log);
            Set<Long> markers = new HashSet<>();
            List<Rec> read = new ArrayList<>();
            for (MutableRecordBatch batch : batches) {
                if (batch.isControlBatch()) {
                    markers.add(batch.baseOffset());
                    continue;
                }
                for (Record record : batch) {
                    read.add(new Rec(
                            record.offset(),
                            StandardCharsets.UTF_8.decode(record.key()).toString(),
                            record.hasValue()
                                    ? StandardCharsets.UTF_8
                                            .decode(record.value())
                                            .toString()
                                    : null));
                }
            }
            long firstOpen = openTxnOffsets.values().stream()
                    .mapToLong(offsets -> offsets.get(0))
                    .min()
                    .orElse(log.logEndOffset());
            assertThat(log.lastStableOffset())
                    .as("last stable offset")
                    .isEqualTo(Math.max(firstOpen, log.logStartOffset()));
            for (Rec rec : read) {
                if (abortedOffsets.contains(rec.offset())) {
                    assertThat(rec.offset())
                            .as("aborted %s below the checkpoint", rec)
                            .isGreaterThanOrEqualTo(checkpoint);
                    assertThat(log.abortedTransactions(rec.offset(), rec.offset() + 1))
                            .as("aborted %s is indexed", rec)
                            .anyMatch(t -> t.firstOffset() <= rec.offset() && rec.offset() <= t.lastOffset());
                }
                Long marker = markerOfRecord.get(rec.offset());
                if (marker != null) {
                    assertThat(markers)
                            .as("the marker of %s stays while it is read", rec)
                            .contains(marker);
                }
            }
            assertThat(manager.cleaner().checkpoint(log).orElse(0))
                    .as("stored checkpoint")
                    .isEqualTo(checkpoint);
            long previous = -1;
            for (Rec rec : read) {
                assertThat(rec.offset()).as("offsets strictly increase").isGreaterThan(previous);
                assertThat(rec).as("record at %d as appended", rec.offset()).isEqualTo(appended.get(rec.offset()));
                previous = rec.offset();
            }
            assertThat(read.stream()
                            .filter(r -> r.offset() >= checkpoint && !abortedOffsets.contains(r.offset()))
                            .toList())
                    .as("the dirty part is whole but for aborted records")
                    .containsExactlyElementsOf(appended.values().stream()
                            .filter(r -> r.offset() >= checkpoint && !abortedOffsets.contains(r.offset()))
                            .toList());

            Map<String, Rec> latestBelow = new HashMap<>();
            appended.values().stream()
                    .filter(r -> r.offset() < checkpoint && !abortedOffsets.contains(r.offset()))
                    .forEach(r -> latestBelow.put(r.key(), r));
            List<Rec> cleanPart =
                    read.stream().filter(r -> r.offset() < checkpoint).toList();
            Set<String> keysSeen = new HashSet<>();
            for (Rec rec : cleanPart) {
                assertThat(keysSeen.add(rec.key()))
                        .as("one record per key below the checkpoint: %s", rec)
                        .isTrue();
                assertThat(rec)
                        .as("only the latest of its key below the checkpoint")
                        .isEqualTo(latestBelow.get(rec.key()));
                if (rec.value() == null) {
                    long firstCleanedMs = tombstoneFirstCleanedMs.get(rec.offset());
                    boolean horizonPassedAtAPass =
                            passTimesMs.stream().anyMatch(t -> t >= firstCleanedMs + DELETE_RETENTION_MS);
                    assertThat(horizonPassedAtAPass)
                            .as("tombstone %s outlived its delete horizon", rec)
                            .isFalse();
                }
            }
            for (Rec latest : latestBelow.values()) {
                if (latest.value() != null) {
                    assertThat(cleanPart)
                            .as("the latest value of %s", latest.key())
                            .contains(latest);
                }
            }
        }

        void close() {
            if (manager != null) {
                manager.close();
            }
        }
    }
}
