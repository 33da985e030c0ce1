package io.varve.coordinator.runtime;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.CoordinatorNotAvailableException;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the shards of one coordinator ({@code __consumer_offsets} or {@code __transaction_state}): one shard per
 * partition this broker leads, each confined to its thread of the {@link CoordinatorScheduler}.
 *
 * <p>Shard life, per partition:
 *
 * <pre>
 *   load(p, epoch)   no slot, or a slot of an older epoch  -> LOADING (the older one is unloaded first)
 *                    a slot of this epoch or a newer one   -> ignored (a stale announcement)
 *   LOADING  -> ACTIVE     the loader replayed the partition (answers wait until what it replayed is committed)
 *   LOADING  -> LOADING    the loader failed: tried again after {@link #LOAD_RETRY_MS} while the slot is current
 *   ACTIVE   -> UNLOADED   unload(p, epoch &gt;= the slot's), a write that cannot commit, close()
 * </pre>
 *
 * Events reach only an ACTIVE shard; a LOADING one answers COORDINATOR_LOAD_IN_PROGRESS, a missing or unloaded one
 * NOT_COORDINATOR, so clients look the coordinator up again. After every event, timer and load the shard's records
 * go to the {@link CoordinatorWriter} in order, and its answers are held until every record written up to that point
 * is committed, also the answers of events that wrote nothing (they may show state written just before them).
 * Unloading fails every held answer with NOT_COORDINATOR and drops the shard, its timers and its in-memory state.
 * At most {@code maxPendingEvents} events wait or run at once; beyond that an event fails at once with
 * COORDINATOR_NOT_AVAILABLE (retriable), so a slow log cannot grow the queues without bound.
 *
 * <p>Threads: every method may be called from any thread. Slots are created and retired under the runtime's monitor
 * (so announcements apply in the order they are made); everything else about a shard happens on its thread.
 */
public final class CoordinatorRuntime<S extends CoordinatorShard> implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(CoordinatorRuntime.class);

    /** How long a failed load waits before it is tried again. */
    public static final long LOAD_RETRY_MS = 1_000;

    /** Any epoch: for events that do not belong to one leadership. */
    public static final int ANY_EPOCH = -1;

    private enum State {
        LOADING,
        ACTIVE,
        UNLOADED
    }

    /** Answers held until the write numbered {@code writeSeq} is committed. */
    private record Held(long writeSeq, Outbox.Output output) {}

    /** One partition's shard at one leader epoch; fields other than {@code retired} are confined to its thread. */
    private final class Slot {
        final int partition;
        final int epoch;
        /** Set once, by whoever retires the slot; events check it before touching the shard. */
        volatile boolean retired;

        State state = State.LOADING;
        S shard;
        final ArrayDeque<Held> held = new ArrayDeque<>();
        long lastWriteSeq;
        long committedSeq;
        CoordinatorScheduler.Cancellable timer;
        long timerAtMs = Long.MAX_VALUE;

        Slot(int partition, int epoch) {
            this.partition = partition;
            this.epoch = epoch;
        }

        String name() {
            return topic + "-" + partition;
        }
    }

    private final String topic;
    private final CoordinatorScheduler scheduler;
    private final CoordinatorLoader<S> loader;
    private final CoordinatorWriter writer;
    private final LongSupplier clock;
    private final Consumer<S> beforeDrain;
    private final int maxPendingEvents;
    private final Map<Integer, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicInteger pendingEvents = new AtomicInteger();
    private volatile boolean closed;

    /**
     * @param topic            the internal topic's name, for messages and logs
     * @param clock            milliseconds, the clock the shards' deadlines are on
     * @param beforeDrain      run on the shard's thread after every event, timer and load, before the shard is
     *                         drained: the coordinator may add answers there (the transaction coordinator parks its
     *                         markers until its records commit)
     * @param maxPendingEvents the most events waiting or running at once, over all shards
     */
    public CoordinatorRuntime(
            String topic,
            CoordinatorScheduler scheduler,
            CoordinatorLoader<S> loader,
            CoordinatorWriter writer,
            LongSupplier clock,
            Consumer<S> beforeDrain,
            int maxPendingEvents) {
        if (maxPendingEvents <= 0) {
            throw new IllegalArgumentException("maxPendingEvents must be positive: " + maxPendingEvents);
        }
        this.topic = topic;
        this.scheduler = scheduler;
        this.loader = loader;
        this.writer = writer;
        this.clock = clock;
        this.beforeDrain = beforeDrain;
        this.maxPendingEvents = maxPendingEvents;
    }

    public String topic() {
        return topic;
    }

    // ---------------------------------------------------------------- leadership

    /**
     * This broker leads {@code partition} at {@code leaderEpoch}: loads its shard, replacing one of an older epoch.
     * Returns false, doing nothing, when a shard of this epoch or a newer one is already there.
     */
    public synchronized boolean load(int partition, int leaderEpoch) {
        if (closed) {
            return false;
        }
        Slot current = slots.get(partition);
        if (current != null && current.epoch >= leaderEpoch) {
            if (current.epoch > leaderEpoch) {
                log.info(
                        "Ignoring the load of {}-{} at leader epoch {}: epoch {} is loaded already",
                        topic,
                        partition,
                        leaderEpoch,
                        current.epoch);
            }
            return false;
        }
        if (current != null) {
            retire(current, "leader epoch " + leaderEpoch + " replaces epoch " + current.epoch);
        }
        Slot slot = new Slot(partition, leaderEpoch);
        slots.put(partition, slot);
        submit(slot, () -> loadOnThread(slot));
        return true;
    }

    /**
     * This broker stopped leading {@code partition} (it led it at {@code leaderEpoch}): unloads the shard unless it
     * belongs to a newer epoch. Held answers fail with NOT_COORDINATOR.
     */
    public synchronized void unload(int partition, int leaderEpoch) {
        Slot current = slots.get(partition);
        if (current == null || current.epoch > leaderEpoch) {
            return;
        }
        slots.remove(partition, current);
        retire(current, "this broker no longer leads it (leader epoch " + leaderEpoch + ")");
    }

    /** The partitions with a shard, loaded or loading. */
    public List<Integer> partitions() {
        return List.copyOf(slots.keySet());
    }

    /** Whether {@code partition} has a shard at {@code leaderEpoch} (loaded or loading). */
    public boolean hasShard(int partition, int leaderEpoch) {
        Slot s = slots.get(partition);
        return s != null && s.epoch == leaderEpoch;
    }

    /** Whether {@code partition}'s shard is loaded and serving. */
    public boolean isActive(int partition) {
        Slot s = slots.get(partition);
        return s != null && !s.retired && s.state == State.ACTIVE;
    }

    /** The leader epoch of {@code partition}'s shard, or -1 when there is none. */
    public int epoch(int partition) {
        Slot s = slots.get(partition);
        return s == null ? -1 : s.epoch;
    }

    // ---------------------------------------------------------------- events

    /** Runs an event on {@code partition}'s shard; see the class comment for the errors it fails with. */
    public <T> CompletableFuture<T> run(int partition, Function<S, CompletableFuture<T>> event) {
        return run(partition, ANY_EPOCH, event);
    }

    /** {@link #run(int, Function)}, NOT_COORDINATOR unless the shard is of {@code leaderEpoch}. */
    public <T> CompletableFuture<T> run(int partition, int leaderEpoch, Function<S, CompletableFuture<T>> event) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Slot slot = slots.get(partition);
        if (closed || slot == null || (leaderEpoch != ANY_EPOCH && slot.epoch != leaderEpoch)) {
            result.completeExceptionally(notCoordinator(partition));
            return result;
        }
        if (pendingEvents.incrementAndGet() > maxPendingEvents) {
            pendingEvents.decrementAndGet();
            result.completeExceptionally(new CoordinatorNotAvailableException(
                    "The coordinator of " + slot.name() + " has " + maxPendingEvents + " events waiting already."));
            return result;
        }
        result.whenComplete((v, e) -> pendingEvents.decrementAndGet());
        if (!submit(slot, () -> runOnThread(slot, event, result))) {
            result.completeExceptionally(notCoordinator(partition));
        }
        return result;
    }

    /** Runs an event on every shard (loading ones fail it with COORDINATOR_LOAD_IN_PROGRESS) and collects results. */
    public <T> CompletableFuture<List<T>> runOnAll(Function<S, CompletableFuture<T>> event) {
        List<CompletableFuture<T>> all = new ArrayList<>();
        for (int partition : partitions()) {
            all.add(run(partition, event));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> all.stream().map(CompletableFuture::join).toList());
    }

    private <T> void runOnThread(Slot slot, Function<S, CompletableFuture<T>> event, CompletableFuture<T> result) {
        if (slot.retired || slot.state != State.ACTIVE) {
            result.completeExceptionally(
                    !slot.retired && slot.state == State.LOADING
                            ? new CoordinatorLoadInProgressException(slot.name() + " is loading.")
                            : notCoordinator(slot.partition));
            return;
        }
        try {
            event.apply(slot.shard).whenComplete((v, e) -> {
                if (e != null) {
                    result.completeExceptionally(e);
                } else {
                    result.complete(v);
                }
            });
        } catch (RuntimeException e) {
            log.error("A coordinator event on {} failed", slot.name(), e);
            result.completeExceptionally(e);
        }
        drainAndWrite(slot);
    }

    // ---------------------------------------------------------------- loading and unloading

    private void loadOnThread(Slot slot) {
        if (slot.retired || slot.state != State.LOADING) {
            return;
        }
        long startMs = clock.getAsLong();
        CoordinatorLoader.Loaded<S> loaded;
        try {
            loaded = loader.load(slot.partition, slot.epoch);
        } catch (RuntimeException e) {
            if (e instanceof RetriableException) {
                log.info("Loading {} deferred ({}); retrying in {} ms", slot.name(), e.getMessage(), LOAD_RETRY_MS);
            } else {
                log.error("Loading {} failed; retrying in {} ms", slot.name(), LOAD_RETRY_MS, e);
            }
            schedule(slot, () -> loadOnThread(slot), LOAD_RETRY_MS);
            return;
        }
        if (slot.retired) {
            return; // resigned while loading: the state just read is dropped
        }
        slot.shard = loaded.shard();
        slot.state = State.ACTIVE;
        log.info("Loaded {} at leader epoch {} in {} ms", slot.name(), slot.epoch, clock.getAsLong() - startMs);
        // The replayed tail counts as the shard's first write: answers wait for it like for any other.
        CompletableFuture<?> tail = loaded.replayedCommitted();
        if (!tail.isDone() || tail.isCompletedExceptionally()) {
            long seq = ++slot.lastWriteSeq;
            tail.whenComplete((v, e) -> {
                if (!submit(slot, () -> onWritten(slot, seq, e))) {
                    log.debug("{} shut down before its replayed records committed", slot.name());
                }
            });
        }
        drainAndWrite(slot);
    }

    /** Retires {@code slot} at once (events queued behind see it) and unloads it on its thread. */
    private void retire(Slot slot, String why) {
        slot.retired = true;
        if (!submit(slot, () -> unloadOnThread(slot, why))) {
            log.info("Dropped {} at leader epoch {}: {}", slot.name(), slot.epoch, why);
        }
    }

    private void unloadOnThread(Slot slot, String why) {
        if (slot.state == State.UNLOADED) {
            return;
        }
        boolean wasLoaded = slot.state == State.ACTIVE;
        slot.state = State.UNLOADED;
        cancelTimer(slot);
        NotCoordinatorException failure =
                new NotCoordinatorException("This broker no longer coordinates " + slot.name() + ": " + why + ".");
        int failed = 0;
        for (Held h : slot.held) {
            failed += h.output.completions().size();
            h.output.fail(failure);
        }
        slot.held.clear();
        slot.shard = null;
        if (wasLoaded) {
            log.info(
                    "Unloaded {} at leader epoch {}: {} ({} waiting answers failed with NOT_COORDINATOR)",
                    slot.name(),
                    slot.epoch,
                    why,
                    failed);
        }
    }

    // ---------------------------------------------------------------- writing and answering

    /** Writes what the shard produced and holds its answers until the writes before them are committed. */
    private void drainAndWrite(Slot slot) {
        if (slot.retired || slot.state != State.ACTIVE) {
            return;
        }
        try {
            beforeDrain.accept(slot.shard);
        } catch (RuntimeException e) {
            log.error("A coordinator hook on {} failed", slot.name(), e);
        }
        Outbox.Output out = slot.shard.drain();
        if (!out.writes().isEmpty()) {
            long seq = ++slot.lastWriteSeq;
            slot.held.addLast(new Held(seq, out));
            CompletableFuture<Long> written;
            try {
                written = writer.append(slot.partition, slot.epoch, out.writes());
            } catch (RuntimeException e) {
                written = CompletableFuture.failedFuture(e);
            }
            if (written.isDone()) {
                onWritten(slot, seq, written.isCompletedExceptionally() ? exceptionOf(written) : null);
            } else {
                written.whenComplete((offset, e) -> {
                    if (!submit(slot, () -> onWritten(slot, seq, e))) {
                        out.fail(notCoordinator(slot.partition));
                    }
                });
            }
        } else if (!out.completions().isEmpty()) {
            if (slot.committedSeq == slot.lastWriteSeq) {
                out.complete();
            } else {
                slot.held.addLast(new Held(slot.lastWriteSeq, out));
            }
        }
        if (!slot.retired && slot.state == State.ACTIVE) { // a write refused at once unloads the shard
            rescheduleTimer(slot);
        }
    }

    private void onWritten(Slot slot, long seq, Throwable error) {
        if (slot.state != State.ACTIVE) {
            return; // unloaded: its answers failed then
        }
        if (error != null) {
            writeFailed(slot, error);
            return;
        }
        // The log commits in order, so a commit of write n commits every write before it.
        slot.committedSeq = Math.max(slot.committedSeq, seq);
        while (!slot.held.isEmpty() && slot.held.peekFirst().writeSeq <= slot.committedSeq) {
            slot.held.pollFirst().output.complete();
        }
    }

    /**
     * The shard's state holds records the log did not take: it is unloaded (the log is the truth). When leadership
     * was lost the next leader loads it; otherwise this broker loads it again at once from what the log has.
     */
    private void writeFailed(Slot slot, Throwable error) {
        Throwable cause = unwrap(error);
        boolean leadershipLost = cause instanceof NotLeaderOrFollowerException
                || cause instanceof FencedLeaderEpochException
                || cause instanceof NotCoordinatorException;
        log.warn(
                "Writing to {} at leader epoch {} failed ({}): unloading the shard{}",
                slot.name(),
                slot.epoch,
                cause.toString(),
                leadershipLost ? "" : "; it reloads from the log");
        synchronized (this) {
            if (slots.get(slot.partition) == slot) {
                slots.remove(slot.partition);
                slot.retired = true;
                if (!leadershipLost && !closed) {
                    Slot again = new Slot(slot.partition, slot.epoch);
                    slots.put(slot.partition, again);
                    submit(again, () -> loadOnThread(again));
                }
            }
            slot.retired = true;
        }
        unloadOnThread(slot, "a write failed (" + cause.getClass().getSimpleName() + ")");
    }

    // ---------------------------------------------------------------- timers

    private void rescheduleTimer(Slot slot) {
        long next = slot.shard.nextDeadlineMs();
        if (next == slot.timerAtMs && slot.timer != null) {
            return;
        }
        cancelTimer(slot);
        if (next == Long.MAX_VALUE) {
            return;
        }
        slot.timerAtMs = next;
        slot.timer = schedule(slot, () -> onTimer(slot, next), Math.max(0, next - clock.getAsLong()));
    }

    private void onTimer(Slot slot, long deadlineMs) {
        if (slot.timerAtMs != deadlineMs || slot.retired || slot.state != State.ACTIVE) {
            return;
        }
        slot.timer = null;
        slot.timerAtMs = Long.MAX_VALUE;
        try {
            slot.shard.tick();
        } catch (RuntimeException e) {
            log.error("The timers of {} failed", slot.name(), e);
        }
        drainAndWrite(slot);
    }

    private void cancelTimer(Slot slot) {
        if (slot.timer != null) {
            slot.timer.cancel();
            slot.timer = null;
        }
        slot.timerAtMs = Long.MAX_VALUE;
    }

    // ---------------------------------------------------------------- scheduling

    private boolean submit(Slot slot, Runnable task) {
        try {
            scheduler.execute(slot.partition, task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private CoordinatorScheduler.Cancellable schedule(Slot slot, Runnable task, long delayMs) {
        try {
            return scheduler.schedule(slot.partition, task, delayMs);
        } catch (RejectedExecutionException e) {
            return () -> {}; // shutting down
        }
    }

    private NotCoordinatorException notCoordinator(int partition) {
        return new NotCoordinatorException(
                closed
                        ? "The coordinator is shut down."
                        : "This broker does not coordinate " + topic + "-" + partition + ".");
    }

    private static Throwable exceptionOf(CompletableFuture<?> failed) {
        try {
            failed.join();
            throw new IllegalStateException("not failed");
        } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
            return e;
        }
    }

    static Throwable unwrap(Throwable e) {
        while ((e instanceof java.util.concurrent.CompletionException
                        || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** Unloads every shard: their waiting answers fail with NOT_COORDINATOR. The scheduler is the caller's. */
    @Override
    public synchronized void close() {
        closed = true;
        for (Slot slot : List.copyOf(slots.values())) {
            slots.remove(slot.partition, slot);
            retire(slot, "the coordinator is shutting down");
        }
    }
}
