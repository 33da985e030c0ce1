package io.varve.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.apache.kafka.common.errors.KafkaStorageException;

/**
 * The log manager's I/O threads. Opening, creating and closing a log is mostly small file reads, opens and fsyncs,
 * so doing many at once keeps the disk busy rather than the CPU.
 */
final class LogIoPool {

    private static final int THREADS = 8;

    private final ExecutorService pool = Executors.newFixedThreadPool(THREADS, runnable -> {
        Thread thread = new Thread(runnable, "varve-log-io");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * Runs the tasks and returns their results in order. The first failure is rethrown once every task ended, after
     * {@code discard} was given each result the other tasks produced (for example to close the logs they opened).
     */
    <T> List<T> runAll(Collection<? extends Callable<T>> tasks, Consumer<T> discard) throws IOException {
        List<Future<T>> futures = new ArrayList<>();
        for (Callable<T> task : tasks) {
            futures.add(pool.submit(task));
        }
        List<T> results = new ArrayList<>();
        Throwable failure = null;
        for (Future<T> f : futures) {
            try {
                results.add(f.get());
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : failure;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failure = failure == null ? e : failure;
            }
        }
        if (failure == null) {
            return results;
        }
        results.forEach(discard);
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        throw new KafkaStorageException("A log I/O task failed", failure);
    }

    /** What one task of {@link #runEach} gave: its value, or the failure (then value is null). */
    record Outcome<T>(T value, Throwable failure) {}

    /** Runs the tasks and returns each one's outcome in order: one task's failure does not touch the others. */
    <T> List<Outcome<T>> runEach(Collection<? extends Callable<T>> tasks) {
        List<Future<T>> futures = new ArrayList<>();
        for (Callable<T> task : tasks) {
            futures.add(pool.submit(task));
        }
        List<Outcome<T>> outcomes = new ArrayList<>();
        for (Future<T> f : futures) {
            try {
                outcomes.add(new Outcome<>(f.get(), null));
            } catch (ExecutionException e) {
                outcomes.add(new Outcome<>(null, e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                outcomes.add(new Outcome<>(null, e));
            }
        }
        return outcomes;
    }

    /** Runs {@code task} in the background; false when the pool is shutting down. */
    boolean execute(Runnable task) {
        try {
            pool.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    Future<?> submit(Runnable task) {
        return pool.submit(task);
    }

    /** Lets queued tasks finish and accepts no more. */
    void shutdown() {
        pool.shutdown();
    }
}
