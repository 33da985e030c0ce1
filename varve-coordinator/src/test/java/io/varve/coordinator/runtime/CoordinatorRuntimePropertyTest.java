package io.varve.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.record.CoordinatorRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.junit.jupiter.api.Test;

/**
 * Random schedules of leadership changes, events, commits, refused writes and timers against the runtime, 200 seeds
 * (a failure names its seed; {@link #replay} runs one). Invariants: an answer that succeeds does so only after the
 * write of its record, and every write before it, is committed; a read shows only committed increments; answers fail
 * only with the runtime's retriable coordinator errors; once everything is committed or unloaded no answer is left
 * waiting.
 */
class CoordinatorRuntimePropertyTest {
    private static final int SEEDS = 200;
    private static final int OPERATIONS = 400;
    private static final int PARTITIONS = 3;

    /** Every record key is unique: the write holding it is the one an answer depends on. */
    private static final class Writer implements CoordinatorWriter {
        final List<CompletableFuture<Long>> pending = new ArrayList<>();
        final Map<String, CompletableFuture<Long>> byKey = new HashMap<>();
        final Random random;

        Writer(Random random) {
            this.random = random;
        }

        @Override
        public CompletableFuture<Long> append(int partition, int leaderEpoch, List<Outbox.Write> writes) {
            if (random.nextInt(50) == 0) {
                throw new KafkaStorageException("refused at once");
            }
            CompletableFuture<Long> f = new CompletableFuture<>();
            pending.add(f);
            for (Outbox.Write w : writes) {
                for (CoordinatorRecord r : w.records()) {
                    byKey.put(new String(r.key(), StandardCharsets.UTF_8), f);
                }
            }
            return f;
        }

        /** Commits the oldest pending writes, in order, as a high watermark would. */
        void commitSome() {
            int n = random.nextInt(pending.size() + 1);
            for (int i = 0; i < n; i++) {
                pending.remove(0).complete(0L);
            }
        }

        /** Leadership lost: every pending write fails. */
        void failAll() {
            pending.forEach(f -> f.completeExceptionally(new NotLeaderOrFollowerException("deposed")));
            pending.clear();
        }

        void commitAll() {
            pending.forEach(f -> f.complete(0L));
            pending.clear();
        }
    }

    /** Counts increments per key; each increment is a record; a timer writes one record when due. */
    private static final class Shard implements CoordinatorShard {
        final Outbox outbox = new Outbox();
        final Map<String, Integer> counts = new HashMap<>();
        final java.util.function.LongSupplier clock;
        long dueMs = Long.MAX_VALUE;
        int ticks;
        final int partition;

        Shard(int partition, java.util.function.LongSupplier clock) {
            this.partition = partition;
            this.clock = clock;
        }

        CompletableFuture<Integer> increment(String key) {
            int v = counts.merge(key, 1, Integer::sum);
            outbox.append(new CoordinatorRecord(key.getBytes(StandardCharsets.UTF_8), new byte[] {(byte) v}));
            if (dueMs == Long.MAX_VALUE) {
                dueMs = clock.getAsLong() + 50;
            }
            return outbox.respond(v);
        }

        CompletableFuture<Integer> read(String key) {
            return outbox.respond(counts.getOrDefault(key, 0));
        }

        @Override
        public Outbox.Output drain() {
            return outbox.drain();
        }

        @Override
        public void tick() {
            if (clock.getAsLong() >= dueMs) {
                dueMs = Long.MAX_VALUE;
                String key = "tick-" + partition + "-" + (ticks++) + "-" + System.identityHashCode(this);
                outbox.append(new CoordinatorRecord(key.getBytes(StandardCharsets.UTF_8), new byte[] {1}));
            }
        }

        @Override
        public long nextDeadlineMs() {
            return dueMs;
        }
    }

    private record Answer(CompletableFuture<Integer> future, String key, boolean isRead) {}

    @Test
    void answersNeverOvertakeTheirCommitsAndNoneIsLeftWaiting() {
        for (long seed = 0; seed < SEEDS; seed++) {
            try {
                replay(seed);
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("seed " + seed + " failed: " + e.getMessage(), e);
            }
        }
    }

    static void replay(long seed) {
        Random random = new Random(seed);
        ManualScheduler scheduler = new ManualScheduler();
        Writer writer = new Writer(random);
        int[] failNextLoads = {0};
        CoordinatorRuntime<Shard> runtime = new CoordinatorRuntime<>(
                "__prop",
                scheduler,
                (partition, epoch) -> {
                    if (failNextLoads[0] > 0) {
                        failNextLoads[0]--;
                        throw new KafkaStorageException("not open yet");
                    }
                    return CoordinatorLoader.Loaded.committed(new Shard(partition, scheduler::nowMs));
                },
                writer,
                scheduler::nowMs,
                shard -> {},
                64);
        int[] epochs = new int[PARTITIONS];
        List<Answer> answers = new ArrayList<>();
        List<String> violations = new ArrayList<>();
        for (int op = 0; op < OPERATIONS; op++) {
            int p = random.nextInt(PARTITIONS);
            int kind = random.nextInt(100);
            if (kind < 8) {
                epochs[p] += random.nextInt(3) - 1; // a stale, the same, or a newer epoch
                epochs[p] = Math.max(0, epochs[p]);
                runtime.load(p, epochs[p]);
            } else if (kind < 12) {
                runtime.unload(p, epochs[p]);
            } else if (kind < 14) {
                failNextLoads[0] = 1 + random.nextInt(2);
            } else if (kind < 50) {
                String key = "k" + op;
                CompletableFuture<Integer> f = runtime.run(p, s -> s.increment(key));
                answers.add(watch(new Answer(f, key, false), writer, violations));
            } else if (kind < 65) {
                String key = "k" + random.nextInt(op + 1);
                CompletableFuture<Integer> f = runtime.run(p, s -> s.read(key));
                answers.add(watch(new Answer(f, key, true), writer, violations));
            } else if (kind < 85) {
                writer.commitSome();
            } else if (kind < 88) {
                writer.failAll();
            } else if (kind < 94) {
                scheduler.advance(random.nextInt(100));
            } else {
                scheduler.runReady();
            }
            if (random.nextBoolean()) {
                scheduler.runReady();
            }
        }
        // Quiesce: everything written commits, then every shard is dropped.
        for (int round = 0; round < 10; round++) {
            scheduler.runReady();
            writer.commitAll();
            scheduler.runReady();
        }
        runtime.close();
        scheduler.runReady();
        writer.commitAll();
        scheduler.runReady();
        assertThat(violations).isEmpty();
        for (Answer a : answers) {
            assertThat(a.future).as("answer for %s", a.key).isDone();
        }
    }

    private static Answer watch(Answer a, Writer writer, List<String> violations) {
        a.future.whenComplete((value, error) -> {
            if (error != null) {
                Throwable cause =
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
                if (!(cause instanceof NotCoordinatorException
                        || cause instanceof CoordinatorLoadInProgressException
                        || cause instanceof CoordinatorNotAvailableException)) {
                    violations.add(a.key + " failed with " + cause);
                }
                return;
            }
            if (!a.isRead || value > 0) {
                CompletableFuture<Long> write = writer.byKey.get(a.key);
                if (write == null || !write.isDone() || write.isCompletedExceptionally()) {
                    violations.add((a.isRead ? "a read of " : "the increment of ") + a.key
                            + " answered before its record was committed");
                }
            }
        });
        return a;
    }
}
