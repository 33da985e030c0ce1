package io.varve.storage;

import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.util.function.LongSupplier;

/**
 * When a partition log fsyncs and what it knows is durable: flush.messages and flush.ms checked at
 * append, flush.ms from the flush scheduler, explicit flushes, and the recovery point (every offset
 * below it is fsynced) those and rolls advance. Flushes take only this object's lock, so an fsync never
 * blocks appends; the recovery point only grows, but for a truncation, which takes it down to the new log end.
 */
final class LogFlusher {

    private final Object lock = new Object();
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

    /** Rolled segments are fsynced before the next one exists: the recovery point may move to its base. */
    void advanceRecoveryPoint(long offset) {
        synchronized (lock) {
            recoveryPoint = Math.max(recoveryPoint, offset);
        }
    }

    /** The log was truncated (durably) to {@code logEndOffset}: nothing at or above it is flushed data any more. */
    void truncateTo(long logEndOffset) {
        synchronized (lock) {
            recoveryPoint = Math.min(recoveryPoint, logEndOffset);
        }
    }

    /** The log starts afresh at {@code offset} with an empty, durable segment. */
    void resetTo(long offset) {
        synchronized (lock) {
            recoveryPoint = offset;
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
     * Fsyncs {@code active} when {@code logEndOffset} (read before {@code active}, so every byte below it is
     * in that segment or an older, already fsynced one) is past the recovery point, then moves the point. Returns
     * whether it fsynced.
     */
    boolean flush(long logEndOffset, LogSegment active, long nowMs) throws IOException {
        synchronized (lock) {
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
