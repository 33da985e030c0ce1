package io.varve.broker.replica;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;

/**
 * Fetches waiting for data (long polling): each waits until {@code min.bytes} more bytes were appended to its
 * partitions or {@code max.wait.ms} passed, then completes once, on the request executor.
 */
public final class FetchPurgatory implements AutoCloseable {

    /** One waiting fetch. {@code onComplete} re-reads the partitions and sends the response. */
    public final class DelayedFetch {
        private final Collection<TopicPartition> partitions;
        private final long bytesNeeded;
        private final Runnable onComplete;
        /** False for a follower's fetch: it reads to the log end, so only appends concern it. */
        private final boolean readsToHighWatermark;

        private final AtomicLong bytesAppended = new AtomicLong();
        private final AtomicBoolean completed = new AtomicBoolean();
        private volatile ScheduledFuture<?> timeout;

        private DelayedFetch(
                Collection<TopicPartition> partitions,
                long bytesNeeded,
                Runnable onComplete,
                boolean readsToHighWatermark) {
            this.partitions = partitions;
            this.bytesNeeded = bytesNeeded;
            this.onComplete = onComplete;
            this.readsToHighWatermark = readsToHighWatermark;
        }

        private void onAppend(int bytes) {
            if (bytesAppended.addAndGet(bytes) >= bytesNeeded) {
                complete();
            }
        }

        /** Completes now unless it already completed; safe to call from any thread. */
        public void complete() {
            if (!completed.compareAndSet(false, true)) {
                return;
            }
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            for (TopicPartition tp : partitions) {
                Set<DelayedFetch> set = watchers.get(tp);
                if (set != null) {
                    set.remove(this);
                }
            }
            executor.execute(onComplete);
        }
    }

    private final ConcurrentHashMap<TopicPartition, Set<DelayedFetch>> watchers = new ConcurrentHashMap<>();
    private final ScheduledThreadPoolExecutor timer;
    private final Executor executor;

    public FetchPurgatory(Executor executor) {
        this.executor = executor;
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "varve-fetch-purgatory");
            t.setDaemon(true);
            return t;
        });
        this.timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Parks a fetch. {@code stillWaiting} is re-checked after registration so an append that raced with the
     * first read is not missed: when it returns false the fetch completes at once.
     */
    public DelayedFetch watch(
            Collection<TopicPartition> partitions,
            long bytesNeeded,
            long maxWaitMs,
            java.util.function.BooleanSupplier stillWaiting,
            Runnable onComplete) {
        return watch(partitions, bytesNeeded, maxWaitMs, stillWaiting, onComplete, true);
    }

    /**
     * {@link #watch(Collection, long, long, java.util.function.BooleanSupplier, Runnable)}; {@code
     * readsToHighWatermark} false for a follower's fetch, which high-watermark moves do not wake.
     */
    public DelayedFetch watch(
            Collection<TopicPartition> partitions,
            long bytesNeeded,
            long maxWaitMs,
            java.util.function.BooleanSupplier stillWaiting,
            Runnable onComplete,
            boolean readsToHighWatermark) {
        DelayedFetch fetch = new DelayedFetch(partitions, Math.max(1, bytesNeeded), onComplete, readsToHighWatermark);
        for (TopicPartition tp : partitions) {
            watchers.computeIfAbsent(tp, k -> ConcurrentHashMap.newKeySet()).add(fetch);
        }
        fetch.timeout = timer.schedule(fetch::complete, maxWaitMs, TimeUnit.MILLISECONDS);
        if (!stillWaiting.getAsBoolean()) {
            fetch.complete();
        }
        return fetch;
    }

    /** Called after bytes were appended to a partition (and its high watermark moved). */
    public void onAppend(TopicPartition tp, int bytes) {
        Set<DelayedFetch> set = watchers.get(tp);
        if (set == null || set.isEmpty()) {
            return;
        }
        for (DelayedFetch fetch : set.toArray(new DelayedFetch[0])) {
            fetch.onAppend(bytes);
        }
    }

    /**
     * Called when a partition's high watermark moved (or its leadership changed): consumers waiting on it read again
     * at once, since what they may read grew; followers keep waiting for appends.
     */
    public void onHighWatermark(TopicPartition tp) {
        Set<DelayedFetch> set = watchers.get(tp);
        if (set == null || set.isEmpty()) {
            return;
        }
        for (DelayedFetch fetch : set.toArray(new DelayedFetch[0])) {
            if (fetch.readsToHighWatermark) {
                fetch.complete();
            }
        }
    }

    /** Fetches waiting, counted once per partition they watch (as Kafka's PurgatorySize counts watchers). */
    public int size() {
        int n = 0;
        for (Set<DelayedFetch> set : watchers.values()) {
            n += set.size();
        }
        return n;
    }

    /** Completes every waiting fetch, for shutdown or a partition that went away. */
    public void completeAll() {
        for (Set<DelayedFetch> set : watchers.values()) {
            for (DelayedFetch fetch : set.toArray(new DelayedFetch[0])) {
                fetch.complete();
            }
        }
    }

    @Override
    public void close() {
        completeAll();
        timer.shutdownNow();
    }
}
