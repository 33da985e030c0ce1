package io.varve.coordinator.group;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * Named deadlines on the shard's clock. Scheduling a key again replaces its deadline; {@link #expire} runs every
 * action whose deadline has passed, including those scheduled by actions it runs, in deadline order.
 */
public final class Timers {
    /** Guards against an action that reschedules itself in the past forever. */
    private static final int MAX_EXPIRIES_PER_CALL = 1_000_000;

    /** Builds a key from parts: ids may hold any character, so keys are lists rather than joined strings. */
    public static Object key(String... parts) {
        return java.util.List.of(parts);
    }

    private record Entry(Object key, long deadlineMs, long sequence, Runnable action) implements Comparable<Entry> {
        @Override
        public int compareTo(Entry o) {
            int c = Long.compare(deadlineMs, o.deadlineMs);
            return c != 0 ? c : Long.compare(sequence, o.sequence);
        }
    }

    private final TreeSet<Entry> queue = new TreeSet<>();
    private final Map<Object, Entry> byKey = new HashMap<>();
    private long sequence;

    public void schedule(Object key, long deadlineMs, Runnable action) {
        cancel(key);
        Entry e = new Entry(key, deadlineMs, sequence++, action);
        queue.add(e);
        byKey.put(key, e);
    }

    public void cancel(Object key) {
        Entry e = byKey.remove(key);
        if (e != null) {
            queue.remove(e);
        }
    }

    public boolean isScheduled(Object key) {
        return byKey.containsKey(key);
    }

    /** The deadline of {@code key}, or -1 when it is not scheduled. */
    public long deadlineMs(Object key) {
        Entry e = byKey.get(key);
        return e == null ? -1 : e.deadlineMs;
    }

    /** The earliest deadline, or {@link Long#MAX_VALUE} when nothing is scheduled. */
    public long nextDeadlineMs() {
        return queue.isEmpty() ? Long.MAX_VALUE : queue.first().deadlineMs;
    }

    /** Runs the actions due at {@code nowMs}; returns how many ran. */
    public int expire(long nowMs) {
        int ran = 0;
        while (!queue.isEmpty() && queue.first().deadlineMs <= nowMs) {
            Entry e = queue.pollFirst();
            byKey.remove(e.key);
            e.action.run();
            if (++ran > MAX_EXPIRIES_PER_CALL) {
                throw new IllegalStateException("timer " + e.key + " keeps expiring: more than " + MAX_EXPIRIES_PER_CALL
                        + " expiries in one call");
            }
        }
        return ran;
    }

    public int size() {
        return byKey.size();
    }
}
