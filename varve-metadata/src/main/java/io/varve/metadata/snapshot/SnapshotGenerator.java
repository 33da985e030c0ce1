package io.varve.metadata.snapshot;

import io.varve.metadata.image.MetadataImage;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes metadata snapshots when the {@link SnapshotPolicy} says so, off the Raft thread.
 *
 * <p>The loader calls {@link #committed} on the Raft thread after each published image (always at a committed
 * batch boundary). When a snapshot is due the image (immutable) is handed to this generator's own thread, which
 * serializes it ({@link MetadataSnapshotFormat}) and gives the bytes to the {@link Sink} (the Raft log: it stores
 * them and moves its log start past them, deleting the segments they cover). One snapshot at a time: while one is
 * written, commits keep counting and the next one starts on the first commit after it completes. A sink failure is
 * logged and retried on a later commit; it never reaches the Raft thread.
 *
 * <p>The time trigger is also checked on this thread every {@code checkIntervalMs}, so an idle cluster still gets
 * its snapshot once the interval passed with something new.
 */
public final class SnapshotGenerator implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotGenerator.class);

    /** Where snapshots go: stores the bytes as the snapshot ending before {@code endOffset}. */
    @FunctionalInterface
    public interface Sink {
        CompletableFuture<?> store(long endOffset, byte[] snapshot);
    }

    private final SnapshotPolicy policy;
    private final Sink sink;
    private final LongSupplier clockMs;
    private final ScheduledExecutorService thread;

    // Guarded by this.
    private MetadataImage latest = MetadataImage.EMPTY;
    private long lastSnapshotEndOffset;
    private boolean inFlight;
    private boolean closed;
    private long written;

    public SnapshotGenerator(
            long maxRecordBytes, long maxIntervalMs, Sink sink, LongSupplier clockMs, String threadName) {
        this.sink = Objects.requireNonNull(sink, "sink");
        this.clockMs = Objects.requireNonNull(clockMs, "clockMs");
        this.policy = new SnapshotPolicy(maxRecordBytes, maxIntervalMs, clockMs.getAsLong());
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread t = new Thread(runnable, threadName);
            t.setDaemon(true);
            return t;
        });
        if (maxIntervalMs > 0) {
            long checkMs = Math.max(1, Math.min(1_000, maxIntervalMs / 2));
            thread.scheduleWithFixedDelay(this::checkInterval, checkMs, checkMs, TimeUnit.MILLISECONDS);
        }
    }

    /** On the Raft thread: {@code image} was published after committed records of {@code recordBytes} bytes. */
    public synchronized void committed(MetadataImage image, long recordBytes) {
        latest = image;
        policy.committed(recordBytes);
        maybeStart();
    }

    /** On the Raft thread: a snapshot replaced the image (at start or from the leader); count from here. */
    public synchronized void loaded(MetadataImage image) {
        latest = image;
        lastSnapshotEndOffset = Math.max(lastSnapshotEndOffset, image.offset() + 1);
        policy.reset(clockMs.getAsLong());
    }

    /** Snapshots this generator stored. */
    public synchronized long written() {
        return written;
    }

    private synchronized void checkInterval() {
        maybeStart();
    }

    private void maybeStart() {
        long nowMs = clockMs.getAsLong();
        if (closed || inFlight || !policy.due(nowMs)) {
            return;
        }
        MetadataImage image = latest;
        if (image.offset() + 1 <= lastSnapshotEndOffset) {
            return; // nothing this image holds is not already in a snapshot
        }
        inFlight = true;
        long counted = policy.bytesSinceLast();
        policy.reset(nowMs);
        try {
            thread.execute(() -> write(image, counted));
        } catch (RejectedExecutionException e) {
            inFlight = false; // closing
        }
    }

    /** On the generator's thread. */
    private void write(MetadataImage image, long countedBytes) {
        long startNanos = System.nanoTime();
        CompletableFuture<?> stored;
        byte[] bytes;
        try {
            bytes = MetadataSnapshotFormat.write(image);
            stored = sink.store(image.offset() + 1, bytes);
        } catch (RuntimeException e) {
            stored = CompletableFuture.failedFuture(e);
            bytes = new byte[0];
        }
        int sizeBytes = bytes.length;
        stored.whenComplete((ignored, error) -> finished(image, countedBytes, sizeBytes, startNanos, error));
    }

    private synchronized void finished(
            MetadataImage image, long countedBytes, int sizeBytes, long startNanos, Throwable error) {
        inFlight = false;
        if (error != null) {
            policy.committed(countedBytes); // still not in any snapshot: due again on the next commit
            LOG.warn(
                    "Metadata snapshot at offset {} was not stored, retrying later: {}",
                    image.offset() + 1,
                    error.toString());
            return;
        }
        written++;
        lastSnapshotEndOffset = Math.max(lastSnapshotEndOffset, image.offset() + 1);
        LOG.info(
                "Wrote metadata snapshot ending at offset {}: {} topics, {} partitions, {} bytes in {} ms",
                image.offset() + 1,
                image.topics().topicsById().size(),
                image.topics().totalPartitions(),
                sizeBytes,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
