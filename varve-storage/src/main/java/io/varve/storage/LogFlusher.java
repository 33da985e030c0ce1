package io.varve.storage;

import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.util.function.LongSupplier;

/**
 * When a partition log fsyncs and what it knows is durable: flush.messages and flush.ms checked at
 * append, flush.ms from the flush scheduler, explicit flushes, and the recovery point (every offset
 * below it is fsynced) those and rolls advance. Flushes take only this object's lock, so an fsync never
 * blocks appends; the recovery point only grows, but for a truncation, which takes it down to the new log end.
 *
 * <p>A roll fsyncs nothing on the append path: it queues the old segment ({@link #rolled}, no lock taken) and
 * {@link #syncRolled} fsyncs the queue later on a background thread; every flush syncs the queue first, so the
 * recovery point never passes a segment that is not durable.
 */
final class LogFlusher {

    /** How a queued rolled segment is made durable: the log's part (its files, snapshot and directory). */
    interface RolledSync {
        /** Fsyncs {@code segment}, which ends before {@code nextOffset}, and what the roll wrote with it. */
        void sync(LogSegment segment, long nextOffset) throws IOException;

        /** Fsyncs the log directory: the roll created files and renamed a snapshot into place. */
        void syncDirectory() throws IOException;
    }

    private record Unsynced(LogSegment segment, long nextOffset) {}

    private final Object lock = new Object();
    /** Rolled segments not fsynced yet, oldest first; added to without the lock (under the log's). */
    private final java.util.concurrent.ConcurrentLinkedQueue<Unsynced> unsyncedRolls =
            new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** The log's current end: a flush that read the end before a truncation must not move the point past it. */
    private final LongSupplier currentLogEndOffset;

    private volatile long recoveryPoint;
    /** -1 until the first append or scheduler check starts the flush.ms clock. */
    private volatile long lastFlushMs = -1;

    LogFlusher(long recoveryPoint, LongSupplier currentLogEndOffset) {
        this.recoveryPoint = recoveryPoint;
        this.currentLogEndOffset = currentLogEndOffset;
    }

    long recoveryPoint() {
        return recoveryPoint;
    }

    /** {@code segment}, ending before {@code nextOffset}, rolled without an fsync: {@link #syncRolled} owes it one. */
    void rolled(LogSegment segment, long nextOffset) {
        unsyncedRolls.add(new Unsynced(segment, nextOffset));
    }

    /** Whether a rolled segment waits for its fsync. */
    boolean rolledUnsynced() {
        return !unsyncedRolls.isEmpty();
    }

    /**
     * Fsyncs the rolled segments queued so far, oldest first, then the directory, and moves the recovery point to the
     * end of the last one; returns whether there was any. A failure leaves the failed segment queued.
     */
    boolean syncRolled(RolledSync sync) throws IOException {
        synchronized (lock) {
            return syncRolledLocked(sync);
        }
    }

    private boolean syncRolledLocked(RolledSync sync) throws IOException {
        if (unsyncedRolls.isEmpty()) {
            return false;
        }
        long syncedTo = -1;
        for (Unsynced next = unsyncedRolls.peek(); next != null; next = unsyncedRolls.peek()) {
            sync.sync(next.segment(), next.nextOffset());
            unsyncedRolls.poll();
            syncedTo = next.nextOffset();
        }
        sync.syncDirectory();
        recoveryPoint = Math.max(recoveryPoint, Math.min(syncedTo, currentLogEndOffset.getAsLong()));
        return true;
    }

    /** The log was truncated (durably) to {@code logEndOffset}: nothing at or above it is flushed data any more. */
    void truncateTo(long logEndOffset) {
        synchronized (lock) {
            recoveryPoint = Math.min(recoveryPoint, logEndOffset);
            // a queued segment cut or retired by the truncation: what is left of it is the active one, which the
            // next flush syncs
            unsyncedRolls.removeIf(u -> u.nextOffset() > logEndOffset);
        }
    }

    /** The log starts afresh at {@code offset} with an empty, durable segment. */
    void resetTo(long offset) {
        synchronized (lock) {
            recoveryPoint = offset;
            unsyncedRolls.clear();
        }
    }

    /** After an append at {@code nowMs}: flush.messages unflushed offsets or flush.ms since the last flush. */
    boolean dueAfterAppend(long logEndOffset, LogConfig config, long nowMs) {
        startClock(nowMs);
        return logEndOffset - recoveryPoint >= config.flushMessages() || nowMs - lastFlushMs >= config.flushMs();
    }

    /** For the flush scheduler: unflushed data and flush.ms since the last flush. */
    boolean dueOnSchedule(long logEndOffset, LogConfig config, long nowMs) {
        startClock(nowMs);
        return logEndOffset > recoveryPoint && nowMs - lastFlushMs >= config.flushMs();
    }

    private void startClock(long nowMs) {
        if (lastFlushMs < 0) {
            lastFlushMs = nowMs;
        }
    }

    /**
     * Fsyncs the rolled segments still queued, then {@code active} when {@code logEndOffset} (read before {@code
     * active}, so every byte below it is in that segment, a queued one, or an older, already fsynced one) is past the
     * recovery point, then moves the point. Returns whether it fsynced.
     */
    boolean flush(long logEndOffset, LogSegment active, long nowMs, RolledSync rolled) throws IOException {
        synchronized (lock) {
            syncRolledLocked(rolled);
            boolean due = logEndOffset > recoveryPoint;
            if (due) {
                active.flush();
                // a truncation lowers the end before it takes this lock to lower the point: the one or the other wins
                recoveryPoint = Math.max(recoveryPoint, Math.min(logEndOffset, currentLogEndOffset.getAsLong()));
            }
            if (nowMs >= 0) {
                lastFlushMs = nowMs;
            }
            return due;
        }
    }
}
