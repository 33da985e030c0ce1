package io.varve.broker.metadata;

import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies metadata snapshots on a thread of its own, newest first: the replica manager's reconciliation (creating and
 * deleting logs, starting fetchers) runs here instead of on the Raft loop that publishes images. A thousand new logs
 * are a few hundred milliseconds of file work; on the Raft loop they held back the controller's reply to the
 * CreateTopics that made them, and on a cluster every voter's fetches and heartbeats meanwhile. Kafka's brokers too
 * create logs after their metadata cache shows the new partitions.
 *
 * <p>At most one snapshot waits (a queue bounded to one): each apply reconciles the whole image, so a snapshot
 * superseded while an apply ran needs no apply of its own. Snapshots are applied in the order submitted, never an
 * older one after a newer.
 */
final class LatestSnapshotApplier implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(LatestSnapshotApplier.class);
    private static final long CLOSE_WAIT_MS = 30_000;
    /** An apply this slow gets a line: an operator waiting for new partitions to serve should see why. */
    private static final long SLOW_APPLY_MS = 1_000;

    private final Consumer<MetadataSnapshot> apply;
    private final Thread thread;
    /** Guarded by this: the snapshot waiting to be applied, or null. */
    private MetadataSnapshot pending;
    /** Guarded by this: the offset of the snapshot applied last, -1 before the first. */
    private long appliedOffset = -1;
    /** Guarded by this. */
    private boolean closed;

    LatestSnapshotApplier(String threadName, Consumer<MetadataSnapshot> apply) {
        this.apply = apply;
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Makes {@code snapshot} the next to apply, replacing one not started yet. Ignored after {@link #close}. */
    synchronized void submit(MetadataSnapshot snapshot) {
        if (closed) {
            return;
        }
        if (pending != null && pending.offset() > snapshot.offset()) {
            throw new IllegalStateException(
                    "snapshot at offset " + snapshot.offset() + " submitted after one at " + pending.offset());
        }
        pending = snapshot;
        notifyAll();
    }

    /** Waits until a snapshot at {@code offset} or later has been applied; false at the timeout or after close. */
    synchronized boolean awaitApplied(long offset, long timeoutMs) throws InterruptedException {
        long deadlineNanos = System.nanoTime() + timeoutMs * 1_000_000L;
        while (appliedOffset < offset && !closed) {
            long leftMs = (deadlineNanos - System.nanoTime()) / 1_000_000L;
            if (leftMs <= 0) {
                return false;
            }
            wait(leftMs);
        }
        return appliedOffset >= offset;
    }

    private void run() {
        while (true) {
            MetadataSnapshot next;
            synchronized (this) {
                while (pending == null && !closed) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                if (closed) {
                    return;
                }
                next = pending;
                pending = null;
            }
            long startNanos = System.nanoTime();
            try {
                apply.accept(next);
            } catch (RuntimeException e) {
                // the next image is applied whole again, so one failure does not strand the ones after it
                log.error("Applying the metadata image at offset {} to the local replicas failed", next.offset(), e);
            }
            long tookMs = (System.nanoTime() - startNanos) / 1_000_000L;
            if (tookMs >= SLOW_APPLY_MS) {
                log.info(
                        "Applied the metadata image at offset {} to the local replicas in {} ms",
                        next.offset(),
                        tookMs);
            }
            synchronized (this) {
                appliedOffset = next.offset();
                notifyAll();
            }
        }
    }

    /** Stops taking snapshots and waits for an apply in progress to end; one still waiting is dropped. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
            pending = null;
            notifyAll();
        }
        try {
            thread.join(CLOSE_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            log.warn("The metadata apply thread did not stop within {} ms", CLOSE_WAIT_MS);
        }
    }
}
