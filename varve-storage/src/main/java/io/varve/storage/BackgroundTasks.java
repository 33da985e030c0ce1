package io.varve.storage;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A log manager scheduler: a small pool of daemon threads running periodic tasks (retention, checkpoints,
 * flushes, producer expiry; the log cleaner's threads in a pool of their own) and one-shot delayed file
 * deletions. A failing run is logged and the task keeps its schedule. Shutting down never interrupts a
 * running task (an interrupt would close the FileChannel it is using); it waits for it, bounded.
 */
final class BackgroundTasks {

    private static final int THREADS = 2;
    private static final long SHUTDOWN_WAIT_MS = 30_000L;
    private static final Logger log = LoggerFactory.getLogger(BackgroundTasks.class);

    private final ScheduledThreadPoolExecutor executor;

    BackgroundTasks(String threadNamePrefix) {
        this(threadNamePrefix, THREADS);
    }

    BackgroundTasks(String threadNamePrefix, int threads) {
        AtomicInteger threadNumber = new AtomicInteger();
        ThreadFactory threadFactory = runnable -> {
            Thread thread = new Thread(runnable, threadNamePrefix + "-" + threadNumber.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
        executor = new ScheduledThreadPoolExecutor(threads, threadFactory);
        executor.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
    }

    void schedulePeriodic(String name, long initialDelayMs, long periodMs, Runnable task) {
        executor.scheduleWithFixedDelay(guarded(name, task), initialDelayMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} once after {@code delayMs}; dropped once shutting down (the next start-up does the work). */
    void scheduleOnce(String name, long delayMs, Runnable task) {
        try {
            executor.schedule(guarded(name, task), delayMs, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            log.debug("Not scheduling {}: the log manager is shutting down", name);
        }
    }

    void shutdown() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(SHUTDOWN_WAIT_MS, TimeUnit.MILLISECONDS)) {
                log.warn(
                        "Log manager background tasks still running after {} ms; continuing shutdown",
                        SHUTDOWN_WAIT_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static Runnable guarded(String name, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                if (io.varve.storage.fs.IoErrors.isResourceExhaustion(e)) {
                    // no descriptor free: the next run tries again; a stack trace every few seconds helps nobody
                    log.warn("Log manager task {} could not run now: {}", name, rootMessage(e));
                } else {
                    log.error("Log manager task {} failed", name, e);
                }
            }
        };
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return String.valueOf(root.getMessage());
    }
}
