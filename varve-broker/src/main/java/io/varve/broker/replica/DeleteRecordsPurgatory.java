package io.varve.broker.replica;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;

/**
 * DeleteRecords answers parked until every live replica of each partition has moved its log start offset to the
 * new one (the partition's low watermark, Kafka's DelayedDeleteRecords): followers learn the leader's log start from
 * its fetch responses, delete their own prefix, and report their log start in their next fetch, which re-checks the
 * waiters here. A waiter ends at its timeout (the request's {@code timeout_ms}) with what was reached by then. Bounded:
 * beyond {@code capacity} waiters a request is answered at once with the low watermarks of the moment.
 */
public final class DeleteRecordsPurgatory {
    /** Per partition where its low watermark is, or -1 with why it is not known (no longer led here). */
    public record Outcome(long lowWatermark, RuntimeException error) {}

    private final class Waiter {
        final Map<TopicPartition, Long> targets;
        final ToLongFunction<TopicPartition> lowWatermarks;
        final CompletableFuture<Map<TopicPartition, Outcome>> future = new CompletableFuture<>();

        Waiter(Map<TopicPartition, Long> targets, ToLongFunction<TopicPartition> lowWatermarks) {
            this.targets = targets;
            this.lowWatermarks = lowWatermarks;
        }

        /** Completes when every partition reached its target (or is lost); true when done. */
        boolean tryComplete(boolean expired) {
            Map<TopicPartition, Outcome> outcomes = new HashMap<>();
            boolean done = true;
            for (Map.Entry<TopicPartition, Long> e : targets.entrySet()) {
                long low;
                try {
                    low = lowWatermarks.applyAsLong(e.getKey());
                } catch (org.apache.kafka.common.errors.ApiException lost) { // NOT_LEADER_OR_FOLLOWER, a deleted topic
                    outcomes.put(e.getKey(), new Outcome(-1, lost));
                    continue;
                }
                if (low < e.getValue()) {
                    done = false;
                    outcomes.put(
                            e.getKey(),
                            new Outcome(
                                    low,
                                    expired
                                            ? new org.apache.kafka.common.errors.TimeoutException(
                                                    "The replicas of " + e.getKey() + " did not all reach log start "
                                                            + e.getValue() + " in time (low watermark " + low + ")")
                                            : null));
                } else {
                    outcomes.put(e.getKey(), new Outcome(low, null));
                }
            }
            if (done || expired) {
                waiting.remove(this);
                future.complete(outcomes);
                return true;
            }
            return false;
        }
    }

    private final ScheduledExecutorService timer;
    private final int capacity;
    private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

    DeleteRecordsPurgatory(ScheduledExecutorService timer, int capacity) {
        this.timer = timer;
        this.capacity = capacity;
    }

    /**
     * Completes once the low watermark {@code lowWatermarks} gives (throwing Kafka's error for a partition no longer
     * led here) reaches each target, or at {@code timeoutMs} with the partitions short of it failed by a
     * timeout.
     */
    public CompletableFuture<Map<TopicPartition, Outcome>> await(
            Map<TopicPartition, Long> targets, ToLongFunction<TopicPartition> lowWatermarks, long timeoutMs) {
        Waiter w = new Waiter(Map.copyOf(targets), lowWatermarks);
        if (w.tryComplete(false)) {
            return w.future;
        }
        if (waiting.size() >= capacity || timeoutMs <= 0) {
            w.tryComplete(true);
            return w.future;
        }
        waiting.add(w);
        timer.schedule(() -> w.tryComplete(true), timeoutMs, TimeUnit.MILLISECONDS);
        w.tryComplete(false); // a follower may have reported between the first check and the add
        return w.future;
    }

    /** Re-checks the waiters on {@code tp}: a follower reported a new log start, or the leadership moved. */
    void check(TopicPartition tp) {
        for (Waiter w : waiting) {
            if (w.targets.containsKey(tp)) {
                w.tryComplete(false);
            }
        }
    }

    int size() {
        return waiting.size();
    }
}
