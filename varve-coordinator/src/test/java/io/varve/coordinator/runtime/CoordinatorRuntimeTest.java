package io.varve.coordinator.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.record.CoordinatorRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

class CoordinatorRuntimeTest {
    /** A counter per key; increments are written, reads are not; a timer writes "tick" once due. */
    static final class CounterShard implements CoordinatorShard {
        final int partition;
        final int epoch;
        final Outbox outbox = new Outbox();
        final Map<String, Integer> counters = new HashMap<>();
        final java.util.function.LongSupplier clock;
        long tickAtMs = Long.MAX_VALUE;
        int ticks;

        CounterShard(int partition, int epoch, java.util.function.LongSupplier clock) {
            this.partition = partition;
            this.epoch = epoch;
            this.clock = clock;
        }

        CompletableFuture<Integer> increment(String key) {
            int value = counters.merge(key, 1, Integer::sum);
            outbox.append(record(key, value));
            return outbox.respond(value);
        }

        CompletableFuture<Integer> read(String key) {
            return outbox.respond(counters.getOrDefault(key, 0));
        }

        CompletableFuture<Void> tickIn(long ms) {
            tickAtMs = clock.getAsLong() + ms;
            return outbox.respond(null);
        }

        @Override
        public Outbox.Output drain() {
            return outbox.drain();
        }

        @Override
        public void tick() {
            if (clock.getAsLong() >= tickAtMs) {
                tickAtMs = Long.MAX_VALUE;
                ticks++;
                outbox.append(record("tick", ticks));
            }
        }

        @Override
        public long nextDeadlineMs() {
            return tickAtMs;
        }
    }

    /** A writer that holds every append until the test commits or fails it. */
    static final class HeldWriter implements CoordinatorWriter {
        record Append(int partition, int epoch, List<Outbox.Write> writes, CompletableFuture<Long> committed) {}

        final List<Append> appends = new ArrayList<>();
        RuntimeException refuseNext;
        long offset;

        @Override
        public CompletableFuture<Long> append(int partition, int leaderEpoch, List<Outbox.Write> writes) {
            if (refuseNext != null) {
                RuntimeException e = refuseNext;
                refuseNext = null;
                throw e;
            }
            offset += writes.stream().mapToInt(w -> w.records().size()).sum();
            Append a = new Append(partition, leaderEpoch, writes, new CompletableFuture<>());
            appends.add(a);
            return a.committed;
        }

        void commit(int index) {
            appends.get(index).committed.complete(offset);
        }

        void commitAll() {
            appends.forEach(a -> a.committed.complete(offset));
        }
    }

    private final ManualScheduler scheduler = new ManualScheduler();
    private final HeldWriter writer = new HeldWriter();
    private final List<CounterShard> loaded = new ArrayList<>();
    private RuntimeException failNextLoad;
    private CompletableFuture<?> replayedTail = CompletableFuture.completedFuture(null);
    private final CoordinatorRuntime<CounterShard> runtime = new CoordinatorRuntime<>(
            "__test",
            scheduler,
            (partition, epoch) -> {
                if (failNextLoad != null) {
                    RuntimeException e = failNextLoad;
                    failNextLoad = null;
                    throw e;
                }
                CounterShard s = new CounterShard(partition, epoch, scheduler::nowMs);
                loaded.add(s);
                return new CoordinatorLoader.Loaded<>(s, replayedTail);
            },
            writer,
            scheduler::nowMs,
            shard -> {},
            100);

    private static CoordinatorRecord record(String key, int value) {
        return new CoordinatorRecord(
                key.getBytes(StandardCharsets.UTF_8), Integer.toString(value).getBytes(StandardCharsets.UTF_8));
    }

    private CompletableFuture<Integer> increment(int partition, String key) {
        CompletableFuture<Integer> f = runtime.run(partition, s -> s.increment(key));
        scheduler.runReady();
        return f;
    }

    private static Throwable failure(CompletableFuture<?> f) {
        assertThat(f).isCompletedExceptionally();
        try {
            f.join();
            throw new AssertionError("not failed");
        } catch (CompletionException e) {
            return CoordinatorRuntime.unwrap(e);
        }
    }

    private void loadNow(int partition, int epoch) {
        assertThat(runtime.load(partition, epoch)).isTrue();
        scheduler.runReady();
        assertThat(runtime.isActive(partition)).isTrue();
    }

    @Test
    void anAnswerIsHeldUntilTheRecordsWrittenWithItAreCommitted() {
        loadNow(0, 5);
        CompletableFuture<Integer> answer = increment(0, "a");

        assertThat(writer.appends).hasSize(1);
        assertThat(writer.appends.get(0).epoch()).isEqualTo(5);
        assertThat(answer).isNotDone();

        writer.commit(0);
        scheduler.runReady();
        assertThat(answer).isCompletedWithValue(1);
    }

    @Test
    void anAnswerWithoutRecordsWaitsForTheWritesBeforeIt() {
        loadNow(0, 1);
        CompletableFuture<Integer> first = increment(0, "a");
        CompletableFuture<Integer> read = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();

        assertThat(read).as("it shows a count the log does not hold yet").isNotDone();
        writer.commit(0);
        scheduler.runReady();
        assertThat(first).isCompletedWithValue(1);
        assertThat(read).isCompletedWithValue(1);

        CompletableFuture<Integer> laterRead = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();
        assertThat(laterRead).as("nothing uncommitted before it").isCompletedWithValue(1);
    }

    @Test
    void answersAreReleasedInOrderAsTheHighWatermarkPassesTheirWrites() {
        loadNow(0, 1);
        CompletableFuture<Integer> first = increment(0, "a");
        CompletableFuture<Integer> second = increment(0, "a");
        CompletableFuture<Integer> third = increment(0, "a");

        writer.commit(1); // the commit of a later write commits every write before it
        scheduler.runReady();
        assertThat(first).isCompletedWithValue(1);
        assertThat(second).isCompletedWithValue(2);
        assertThat(third).isNotDone();
    }

    @Test
    void aNewLeadersAnswersWaitUntilTheRecordsItReplayedAreCommitted() {
        CompletableFuture<Void> tail = new CompletableFuture<>();
        replayedTail = tail;
        loadNow(0, 2);
        CompletableFuture<Integer> read = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();
        CompletableFuture<Integer> written = increment(0, "a");

        assertThat(read).as("it may show state from the uncommitted tail").isNotDone();
        tail.complete(null);
        scheduler.runReady();
        assertThat(read).isCompletedWithValue(0);
        assertThat(written).as("its own write is not committed yet").isNotDone();
        writer.commitAll();
        scheduler.runReady();
        assertThat(written).isCompletedWithValue(1);
    }

    @Test
    void aReplayedTailThatNeverCommitsUnloadsTheShard() {
        CompletableFuture<Void> tail = new CompletableFuture<>();
        replayedTail = tail;
        loadNow(0, 2);
        CompletableFuture<Integer> read = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();

        tail.completeExceptionally(new NotLeaderOrFollowerException("deposed"));
        scheduler.runReady();
        assertThat(failure(read)).isInstanceOf(NotCoordinatorException.class);
        assertThat(runtime.partitions()).isEmpty();
    }

    @Test
    void anEventOnALoadingShardGetsCoordinatorLoadInProgress() {
        runtime.load(0, 1);
        CompletableFuture<Integer> f = runtime.run(0, s -> s.read("a"));
        // the load was queued first, so an event right after it finds the shard loaded
        scheduler.runReady();
        assertThat(f).isCompletedWithValue(0);

        failNextLoad = new KafkaStorageException("the log is not open yet");
        runtime.load(1, 1);
        scheduler.runReady();
        CompletableFuture<Integer> whileLoading = runtime.run(1, s -> s.read("a"));
        scheduler.runReady();
        assertThat(failure(whileLoading)).isInstanceOf(CoordinatorLoadInProgressException.class);
    }

    @Test
    void aFailedLoadIsTriedAgainWhileThePartitionIsStillLed() {
        failNextLoad = new KafkaStorageException("the log is not open yet");
        runtime.load(0, 1);
        scheduler.runReady();
        assertThat(runtime.isActive(0)).isFalse();

        scheduler.advance(CoordinatorRuntime.LOAD_RETRY_MS);
        assertThat(runtime.isActive(0)).isTrue();
        assertThat(loaded).hasSize(1);
    }

    @Test
    void anEventForAPartitionWithoutAShardGetsNotCoordinator() {
        assertThat(failure(runtime.run(7, s -> s.read("a")))).isInstanceOf(NotCoordinatorException.class);
    }

    @Test
    void unloadingFailsTheWaitingAnswersWithNotCoordinatorAndDropsTheShard() {
        loadNow(0, 3);
        CompletableFuture<Integer> waiting = increment(0, "a");

        runtime.unload(0, 3);
        CompletableFuture<Integer> after = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();

        assertThat(failure(waiting)).isInstanceOf(NotCoordinatorException.class);
        assertThat(failure(after)).isInstanceOf(NotCoordinatorException.class);
        assertThat(runtime.partitions()).isEmpty();
        writer.commitAll(); // a late commit of the dropped shard's write changes nothing
        scheduler.runReady();
        assertThat(loaded.get(0).counters).containsEntry("a", 1);
    }

    @Test
    void eventsQueuedBehindAnUnloadGetNotCoordinator() {
        loadNow(0, 1);
        CompletableFuture<Integer> queued = runtime.run(0, s -> s.read("a"));
        runtime.unload(0, 1);
        scheduler.runReady();
        assertThat(failure(queued)).isInstanceOf(NotCoordinatorException.class);
    }

    @Test
    void aLoadForAnOlderOrTheSameEpochIsIgnored() {
        loadNow(0, 4);
        increment(0, "a");
        writer.commitAll();
        scheduler.runReady();

        assertThat(runtime.load(0, 3)).isFalse();
        assertThat(runtime.load(0, 4)).isFalse();
        scheduler.runReady();

        assertThat(loaded).hasSize(1);
        assertThat(runtime.epoch(0)).isEqualTo(4);
        CompletableFuture<Integer> read = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();
        assertThat(read).isCompletedWithValue(1);
    }

    @Test
    void aLoadForANewerEpochReplacesTheShardAndFailsWhatTheOldOneHeld() {
        loadNow(0, 1);
        CompletableFuture<Integer> waiting = increment(0, "a");

        assertThat(runtime.load(0, 2)).isTrue();
        scheduler.runReady();

        assertThat(failure(waiting)).isInstanceOf(NotCoordinatorException.class);
        assertThat(loaded).hasSize(2);
        assertThat(loaded.get(1).epoch).isEqualTo(2);
        assertThat(runtime.epoch(0)).isEqualTo(2);
        CompletableFuture<Integer> next = increment(0, "b");
        assertThat(writer.appends.get(writer.appends.size() - 1).epoch()).isEqualTo(2);
        assertThat(next).isNotDone();
    }

    @Test
    void anUnloadForAnOlderEpochLeavesTheNewerShard() {
        loadNow(0, 2);
        runtime.unload(0, 1);
        scheduler.runReady();
        assertThat(runtime.isActive(0)).isTrue();
    }

    @Test
    void anEventBoundToAnEpochGetsNotCoordinatorFromAnotherEpochsShard() {
        loadNow(0, 2);
        CompletableFuture<Integer> stale = runtime.run(0, 1, s -> s.read("a"));
        CompletableFuture<Integer> current = runtime.run(0, 2, s -> s.read("a"));
        scheduler.runReady();
        assertThat(failure(stale)).isInstanceOf(NotCoordinatorException.class);
        assertThat(current).isCompletedWithValue(0);
    }

    @Test
    void aWriteThatLosesTheLeadershipFailsItsAnswersWithNotCoordinatorAndUnloads() {
        loadNow(0, 1);
        CompletableFuture<Integer> first = increment(0, "a");
        CompletableFuture<Integer> read = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();

        writer.appends.get(0).committed().completeExceptionally(new NotLeaderOrFollowerException("moved"));
        scheduler.runReady();

        assertThat(failure(first)).isInstanceOf(NotCoordinatorException.class);
        assertThat(failure(read)).isInstanceOf(NotCoordinatorException.class);
        assertThat(runtime.partitions()).as("the next leader loads it").isEmpty();
    }

    @Test
    void aWriteTheLogRefusesForAnotherReasonReloadsTheShardFromTheLog() {
        loadNow(0, 1);
        writer.refuseNext = new RecordTooLargeException("too large");
        CompletableFuture<Integer> refused = increment(0, "a");
        scheduler.runReady();

        assertThat(failure(refused)).isInstanceOf(NotCoordinatorException.class);
        assertThat(loaded).hasSize(2);
        assertThat(runtime.isActive(0)).isTrue();
        assertThat(loaded.get(1).counters).as("state the log refused is gone").isEmpty();
    }

    @Test
    void timersFireOnTheInjectedClockAndTheirRecordsAreWritten() {
        loadNow(0, 1);
        runtime.run(0, s -> s.tickIn(500));
        scheduler.runReady();

        scheduler.advance(499);
        assertThat(loaded.get(0).ticks).isZero();
        scheduler.advance(1);
        assertThat(loaded.get(0).ticks).isEqualTo(1);
        assertThat(writer.appends).hasSize(1);
    }

    @Test
    void timersAreDroppedWithTheShardOnUnload() {
        loadNow(0, 1);
        runtime.run(0, s -> s.tickIn(500));
        scheduler.runReady();
        runtime.unload(0, 1);
        scheduler.runReady();

        scheduler.advance(1_000);
        assertThat(loaded.get(0).ticks).isZero();
        assertThat(scheduler.pendingTimers()).isZero();
    }

    @Test
    void eventsBeyondTheLimitFailAtOnceWithCoordinatorNotAvailable() {
        loadNow(0, 1);
        List<CompletableFuture<Integer>> waiting = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            waiting.add(runtime.run(0, s -> s.increment("a")));
        }
        CompletableFuture<Integer> beyond = runtime.run(0, s -> s.increment("a"));
        assertThat(failure(beyond)).isInstanceOf(CoordinatorNotAvailableException.class);

        scheduler.runReady();
        writer.commitAll();
        scheduler.runReady();
        assertThat(waiting).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        CompletableFuture<Integer> again = runtime.run(0, s -> s.read("a"));
        scheduler.runReady();
        assertThat(again).isCompletedWithValue(100);
    }

    @Test
    void closingFailsTheWaitingAnswersAndRefusesNewEvents() {
        loadNow(0, 1);
        CompletableFuture<Integer> waiting = increment(0, "a");
        runtime.close();
        scheduler.runReady();
        assertThat(failure(waiting)).isInstanceOf(NotCoordinatorException.class);
        assertThat(failure(runtime.run(0, s -> s.read("a")))).isInstanceOf(NotCoordinatorException.class);
        assertThat(runtime.load(0, 2)).isFalse();
    }
}
