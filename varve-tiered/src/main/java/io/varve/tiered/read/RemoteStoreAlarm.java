package io.varve.tiered.read;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells operators that remote reads are failing: one error line when the first read fails after a success (the
 * outage starts), one line when a read succeeds again (it ends, with how many reads failed and for how long), and
 * nothing per failed request in between.
 */
final class RemoteStoreAlarm {
    private static final Logger log = LoggerFactory.getLogger(RemoteStoreAlarm.class);

    private final LongSupplier clockMs;
    private final AtomicLong failuresInOutage = new AtomicLong();
    private final AtomicLong totalFailures = new AtomicLong();
    /** Start of the current outage, or -1 while reads succeed. Guarded by this for transitions. */
    private volatile long outageStartMs = -1;

    RemoteStoreAlarm(LongSupplier clockMs) {
        this.clockMs = clockMs;
    }

    void failed(Throwable cause) {
        totalFailures.incrementAndGet();
        failuresInOutage.incrementAndGet();
        if (outageStartMs >= 0) {
            return;
        }
        synchronized (this) {
            if (outageStartMs >= 0) {
                return;
            }
            outageStartMs = clockMs.getAsLong();
        }
        log.error(
                "Remote storage reads are failing ({}); fetches of tiered offsets get a retriable error until it recovers",
                cause.toString());
    }

    void succeeded() {
        if (outageStartMs < 0) {
            return;
        }
        long startMs;
        long failures;
        synchronized (this) {
            startMs = outageStartMs;
            if (startMs < 0) {
                return;
            }
            outageStartMs = -1;
            failures = failuresInOutage.getAndSet(0);
        }
        log.info(
                "Remote storage reads recovered after {} ms and {} failed reads",
                clockMs.getAsLong() - startMs,
                failures);
    }

    boolean inOutage() {
        return outageStartMs >= 0;
    }

    /** Failed remote reads since start (a counter for metrics). */
    long totalFailures() {
        return totalFailures.get();
    }
}
