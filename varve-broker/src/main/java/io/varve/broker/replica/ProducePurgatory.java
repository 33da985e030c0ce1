package io.varve.broker.replica;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasAfterAppendException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Appends waiting to be committed (acks=all, coordinator writes): each waits until its partition's high watermark
 * reaches the offset after its last record, its request times out, or the partition's leadership is lost. Bounded:
 * beyond {@code maxWaiting} waits, a new one fails at once with a timeout (the records are in the log; an idempotent
 * producer's retry is answered from its producer state).
 */
public final class ProducePurgatory {
    private final ScheduledExecutorService timer;
    private final int maxWaiting;
    private final AtomicInteger waiting = new AtomicInteger();
    private final ConcurrentHashMap<TopicPartition, Set<Waiter>> byPartition = new ConcurrentHashMap<>();

    public ProducePurgatory(ScheduledExecutorService timer, int maxWaiting) {
        this.timer = timer;
        this.maxWaiting = maxWaiting;
    }

    private final class Waiter {
        final Partition partition;
        final long requiredOffset;
        final int leaderEpoch;
        final boolean checkMinIsr;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        final AtomicBoolean finished = new AtomicBoolean();
        volatile ScheduledFuture<?> timeout;

        Waiter(Partition partition, long requiredOffset, int leaderEpoch, boolean checkMinIsr) {
            this.partition = partition;
            this.requiredOffset = requiredOffset;
            this.leaderEpoch = leaderEpoch;
            this.checkMinIsr = checkMinIsr;
        }

        /** Completes when the partition's state decides; true when it did. */
        boolean tryComplete() {
            Partition.WriteState state = partition.writeState(requiredOffset, leaderEpoch, checkMinIsr);
            return state != Partition.WriteState.PENDING && finish(failure(state, partition));
        }

        boolean finish(RuntimeException error) {
            if (!finished.compareAndSet(false, true)) {
                return true;
            }
            waiting.decrementAndGet();
            ScheduledFuture<?> t = timeout;
            if (t != null) {
                t.cancel(false);
            }
            Set<Waiter> set = byPartition.get(partition.topicPartition());
            if (set != null) {
                set.remove(this);
            }
            if (error == null) {
                done.complete(null);
            } else {
                done.completeExceptionally(error);
            }
            return true;
        }
    }

    /**
     * Waits until {@code partition}'s high watermark reaches {@code requiredOffset} at {@code leaderEpoch}. With
     * {@code checkMinIsr} (acks=all) a commit by an ISR below min.insync.replicas fails with
     * NOT_ENOUGH_REPLICAS_AFTER_APPEND.
     */
    public CompletableFuture<Void> await(
            Partition partition, long requiredOffset, int leaderEpoch, boolean checkMinIsr, long timeoutMs) {
        // Most waits are decided at once (a partition of one replica, followers that fetched already): such a write
        // registers nothing and schedules no timeout. A timeout per write, cancelled at once, used to stay in the
        // timer's queue until it was due: some 100,000 dead tasks at 50 MiB/s, promoted to the old generation.
        Partition.WriteState now = partition.writeState(requiredOffset, leaderEpoch, checkMinIsr);
        if (now == Partition.WriteState.COMMITTED) {
            return CompletableFuture.completedFuture(null);
        }
        if (now != Partition.WriteState.PENDING) {
            return CompletableFuture.failedFuture(failure(now, partition));
        }
        Waiter w = new Waiter(partition, requiredOffset, leaderEpoch, checkMinIsr);
        if (waiting.incrementAndGet() > maxWaiting) {
            waiting.decrementAndGet();
            return CompletableFuture.failedFuture(
                    new TimeoutException(maxWaiting + " writes already wait for replication on this broker."));
        }
        byPartition
                .computeIfAbsent(partition.topicPartition(), k -> ConcurrentHashMap.newKeySet())
                .add(w);
        w.timeout = timer.schedule(
                () -> w.finish(new TimeoutException("The write to " + partition.topicPartition()
                        + " was not replicated to the ISR within " + timeoutMs + " ms.")),
                timeoutMs,
                TimeUnit.MILLISECONDS);
        w.tryComplete(); // the high watermark may have passed it meanwhile
        return w.done;
    }

    /** The error a write decided as {@code state} fails with; null when it is committed. */
    private static RuntimeException failure(Partition.WriteState state, Partition partition) {
        return switch (state) {
            case LEADERSHIP_MOVED ->
                new NotLeaderOrFollowerException(
                        "Leadership of " + partition.topicPartition() + " moved before the write was committed.");
            case BELOW_MIN_ISR ->
                new NotEnoughReplicasAfterAppendException("The ISR of " + partition.topicPartition()
                        + " shrank below min.insync.replicas=" + partition.minInsyncReplicas()
                        + " before the write was committed.");
            case PENDING, COMMITTED -> null;
        };
    }

    /** Re-checks the waits of a partition whose high watermark, ISR or leadership changed. */
    public void check(TopicPartition tp) {
        Set<Waiter> set = byPartition.get(tp);
        if (set == null || set.isEmpty()) {
            return;
        }
        for (Waiter w : set.toArray(new Waiter[0])) {
            w.tryComplete();
        }
    }

    /** Fails every wait of a partition this broker no longer leads. */
    public void leadershipLost(TopicPartition tp) {
        Set<Waiter> set = byPartition.get(tp);
        if (set == null) {
            return;
        }
        for (Waiter w : set.toArray(new Waiter[0])) {
            w.finish(new NotLeaderOrFollowerException(
                    "This broker stopped leading " + tp + " before the write was committed."));
        }
    }

    public int waitingCount() {
        return waiting.get();
    }
}
