package io.varve.raft.core.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.runtime.MemoryRaftLog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random operations on a {@link FileRaftLog} and on the in-memory model the core's tests trust: appends
 * (across small segments), flushes, truncations, snapshot starts, resets, clean reopens and power cuts.
 * After each operation both must agree on every observable: offsets, epochs, entries, epoch ends. After a
 * power cut the file log must keep at least every flushed entry and at most what was appended, whole
 * entries only; the model is then cut to the same end. {@code -Dvarve.raft.store.seed=N} replays one seed.
 */
class FileRaftLogPropertyTest {
    private static final int SEEDS = 40;
    private static final int OPERATIONS = 120;

    @TempDir
    Path root;

    @Test
    void fileLogBehavesAsTheModelAndKeepsEveryFlushedEntryAcrossPowerCuts() {
        String only = System.getProperty("varve.raft.store.seed");
        for (long seed = 0; seed < SEEDS; seed++) {
            if (only != null && Long.parseLong(only) != seed) {
                continue;
            }
            try {
                run(seed);
            } catch (RuntimeException | AssertionError e) {
                throw new AssertionError("seed " + seed + " failed (replay: -Dvarve.raft.store.seed=" + seed + ")", e);
            }
        }
    }

    private void run(long seed) {
        Random random = new Random(seed);
        Path dir = root.resolve("seed-" + seed);
        int segmentBytes = 1024 + random.nextInt(4096);
        MemoryRaftLog model = new MemoryRaftLog();
        FileRaftLog log = FileRaftLog.open(dir, segmentBytes);
        try {
            for (int op = 0; op < OPERATIONS; op++) {
                int dice = random.nextInt(100);
                if (dice < 45) {
                    List<LogEntry> batch = batch(random, model);
                    model.append(batch);
                    log.append(batch);
                } else if (dice < 60) {
                    model.flush();
                    log.flush();
                } else if (dice < 68 && model.endOffset() > model.startOffset()) {
                    long to = model.startOffset() + random.nextInt((int) (model.endOffset() - model.startOffset()) + 1);
                    model.truncateTo(to);
                    log.truncateTo(to);
                } else if (dice < 75 && model.endOffset() > model.startOffset()) {
                    long end =
                            model.startOffset() + 1 + random.nextInt((int) (model.endOffset() - model.startOffset()));
                    SnapshotId id = new SnapshotId(
                            end, model.read(end - 1, end, 1).get(0).epoch());
                    model.advanceStart(id);
                    log.advanceStart(id);
                } else if (dice < 78) {
                    SnapshotId id = new SnapshotId(
                            model.endOffset() + random.nextInt(20), model.lastEpoch() + random.nextInt(2));
                    model.resetTo(id);
                    log.resetTo(id);
                } else if (dice < 86) {
                    log.close();
                    log = FileRaftLog.open(dir, segmentBytes);
                    model.flush(); // a clean close loses nothing and the reopened log fsyncs what it found
                } else {
                    long flushed = model.flushedEndOffset();
                    long appended = model.endOffset();
                    PowerCut.cut(log, random);
                    log = FileRaftLog.open(dir, segmentBytes);
                    assertThat(log.endOffset()).as("end after a power cut").isBetween(flushed, appended);
                    model.truncateTo(log.endOffset());
                    model.flush();
                }
                assertSame(model, log);
            }
        } finally {
            log.close();
        }
    }

    private static List<LogEntry> batch(Random random, MemoryRaftLog model) {
        int count = 1 + random.nextInt(8);
        int epoch = model.lastEpoch() + (random.nextInt(5) == 0 ? 1 + random.nextInt(2) : 0);
        List<LogEntry> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] payload = new byte[random.nextInt(300)];
            random.nextBytes(payload);
            EntryType type = EntryType.values()[random.nextInt(EntryType.values().length)];
            batch.add(new LogEntry(model.endOffset() + i, epoch, type, payload));
        }
        return batch;
    }

    private static void assertSame(MemoryRaftLog model, FileRaftLog log) {
        assertThat(log.startOffset()).as("start").isEqualTo(model.startOffset());
        assertThat(log.startEpoch()).as("start epoch").isEqualTo(model.startEpoch());
        assertThat(log.endOffset()).as("end").isEqualTo(model.endOffset());
        assertThat(log.flushedEndOffset()).as("flushed end").isEqualTo(model.flushedEndOffset());
        assertThat(log.lastEpoch()).as("last epoch").isEqualTo(model.lastEpoch());
        long span = model.endOffset() - model.startOffset();
        assertThat(log.read(model.startOffset(), Long.MAX_VALUE, (int) span + 1))
                .isEqualTo(model.read(model.startOffset(), Long.MAX_VALUE, (int) span + 1));
        for (int epoch = 0; epoch <= model.lastEpoch() + 1; epoch++) {
            assertThat(log.endOffsetForEpoch(epoch))
                    .as("end of epoch " + epoch)
                    .isEqualTo(model.endOffsetForEpoch(epoch));
        }
        if (span > 2) {
            long from = model.startOffset() + span / 3;
            assertThat(log.read(from, from + span / 3, 5)).isEqualTo(model.read(from, from + span / 3, 5));
        }
    }
}
