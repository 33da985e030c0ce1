package io.varve.coordinator.runtime;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.concurrent.RejectedExecutionException;

/**
 * A {@link CoordinatorScheduler} for tests: one logical thread, driven by the test. Tasks run only in
 * {@link #runReady()}; delayed ones once {@link #advance} has moved the clock past their deadline.
 */
final class ManualScheduler implements CoordinatorScheduler {
    private record Delayed(long dueMs, long seq, Runnable task, boolean[] cancelled) {}

    private final ArrayDeque<Runnable> ready = new ArrayDeque<>();
    private final PriorityQueue<Delayed> delayed = new PriorityQueue<>(
            (a, b) -> a.dueMs != b.dueMs ? Long.compare(a.dueMs, b.dueMs) : Long.compare(a.seq, b.seq));
    private long nowMs = 1_000_000;
    private long seq;
    private boolean shutDown;

    long nowMs() {
        return nowMs;
    }

    @Override
    public void execute(int partition, Runnable task) {
        if (shutDown) {
            throw new RejectedExecutionException("shut down");
        }
        ready.addLast(task);
    }

    @Override
    public Cancellable schedule(int partition, Runnable task, long delayMs) {
        if (shutDown) {
            throw new RejectedExecutionException("shut down");
        }
        boolean[] cancelled = {false};
        delayed.add(new Delayed(nowMs + delayMs, seq++, task, cancelled));
        return () -> cancelled[0] = true;
    }

    /** Runs every ready task, including those they submit; returns how many ran. */
    int runReady() {
        int ran = 0;
        while (!ready.isEmpty()) {
            ready.pollFirst().run();
            if (++ran > 100_000) {
                throw new IllegalStateException("tasks keep submitting tasks");
            }
        }
        return ran;
    }

    /** Moves the clock on by {@code ms}, running what falls due in deadline order, and every ready task. */
    void advance(long ms) {
        long until = nowMs + ms;
        runReady();
        while (!delayed.isEmpty() && delayed.peek().dueMs <= until) {
            Delayed d = delayed.poll();
            nowMs = Math.max(nowMs, d.dueMs);
            if (!d.cancelled[0]) {
                d.task.run();
            }
            runReady();
        }
        nowMs = until;
    }

    int pendingTimers() {
        return (int) delayed.stream().filter(d -> !d.cancelled[0]).count();
    }

    void shutDown() {
        shutDown = true;
    }
}
