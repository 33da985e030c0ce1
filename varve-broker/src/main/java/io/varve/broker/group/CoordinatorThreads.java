package io.varve.broker.group;

import io.varve.coordinator.runtime.CoordinatorScheduler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads of a coordinator runtime: {@code count} single-threaded executors, partition {@code p} on thread
 * {@code p % count}, so a shard's tasks run one at a time and in order. Their queues hold what the runtime submits,
 * which {@link io.varve.coordinator.runtime.CoordinatorRuntime} bounds (its pending-event limit).
 */
public final class CoordinatorThreads implements CoordinatorScheduler, AutoCloseable {
    private final ScheduledThreadPoolExecutor[] threads;

    /** Threads named {@code namePrefix-0}, {@code namePrefix-1}... */
    public CoordinatorThreads(String namePrefix, int count) {
        if (count <= 0) {
            throw new IllegalArgumentException("a coordinator needs at least one thread: " + count);
        }
        threads = new ScheduledThreadPoolExecutor[count];
        for (int i = 0; i < count; i++) {
            String name = namePrefix + "-" + i;
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
                Thread thread = new Thread(r, name);
                thread.setDaemon(true);
                return thread;
            });
            t.setRemoveOnCancelPolicy(true);
            t.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            threads[i] = t;
        }
    }

    private ScheduledThreadPoolExecutor thread(int partition) {
        return threads[Math.floorMod(partition, threads.length)];
    }

    @Override
    public void execute(int partition, Runnable task) {
        thread(partition).execute(task);
    }

    @Override
    public Cancellable schedule(int partition, Runnable task, long delayMs) {
        ScheduledFuture<?> f = thread(partition).schedule(task, delayMs, TimeUnit.MILLISECONDS);
        return () -> f.cancel(false);
    }

    /** Stops the threads, letting the running tasks finish (at most 5 s). */
    @Override
    public void close() {
        for (ScheduledThreadPoolExecutor t : threads) {
            t.shutdown();
        }
        for (ScheduledThreadPoolExecutor t : threads) {
            try {
                if (!t.awaitTermination(5, TimeUnit.SECONDS)) {
                    t.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                t.shutdownNow();
            }
        }
    }
}
