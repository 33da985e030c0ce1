package io.varve.coordinator.runtime;

/**
 * The threads a runtime runs on. Every task of one partition runs on the same thread, one at a time, in the order
 * submitted (delayed ones once due); tasks of different partitions may run in parallel. A scheduler that is shut
 * down throws {@link java.util.concurrent.RejectedExecutionException}.
 */
public interface CoordinatorScheduler {
    /** A delayed task that may still be cancelled. */
    interface Cancellable {
        void cancel();
    }

    void execute(int partition, Runnable task);

    Cancellable schedule(int partition, Runnable task, long delayMs);
}
