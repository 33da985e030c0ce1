package io.varve.storage;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The logs of a cleanly shut down log dir that start-up lists but does not open: each is opened on first use or
 * by the background pass after the broker registered, so a broker holding thousands of partitions serves requests
 * without opening them all first. This is safe because nothing touches a log's files before it is opened:
 * retention, flushes, the cleaner and tiering only see open logs, and the checkpoints carry a deferred log's
 * recovery point, log start offset and high watermark as they were read.
 */
final class DeferredLogs {

    private static final Logger log = LoggerFactory.getLogger(DeferredLogs.class);

    /**
     * One log not opened yet. Its open task runs once, on whichever thread gets to it first, unless the entry is
     * cancelled first. The task's own phase, not {@link FutureTask#cancel}, decides between the two: a FutureTask
     * cancelled while running reports cancelled at once, before the running open has ended.
     */
    static final class Entry {
        private static final int PENDING = 0;
        private static final int OPENING = 1;
        private static final int CANCELLED = 2;

        final TopicPartition topicPartition;
        final Path dir;
        /** The checkpointed recovery point and log start offset, or -1 when the checkpoint had none. */
        final long recoveryPoint;

        final long logStartOffset;
        /** The checkpointed high watermark, or -1 when the checkpoint had none. */
        final long highWatermark;
        /** What the metadata wants this log to be (topic id, config), once reconciliation said so; null before. */
        volatile LogManager.LogSpec wanted;

        private final Consumer<Entry> opener;
        private final FutureTask<Void> open;
        private final AtomicInteger phase = new AtomicInteger(PENDING);
        /** Counted down when an open that started has ended, whatever its outcome. */
        private final CountDownLatch opened = new CountDownLatch(1);

        Entry(
                TopicPartition topicPartition,
                Path dir,
                long recoveryPoint,
                long logStartOffset,
                long highWatermark,
                Consumer<Entry> opener) {
            this.topicPartition = topicPartition;
            this.dir = dir;
            this.recoveryPoint = recoveryPoint;
            this.logStartOffset = logStartOffset;
            this.highWatermark = highWatermark;
            this.opener = opener;
            this.open = new FutureTask<>(
                    () -> {
                        if (!phase.compareAndSet(PENDING, OPENING)) {
                            return; // cancelled before it started
                        }
                        try {
                            opener.accept(this);
                        } finally {
                            opened.countDown();
                        }
                    },
                    null);
        }

        /**
         * Opens the log on this thread unless another thread is already at it, then waits for that open to end. When
         * the entry was cancelled first (the log was deleted or the manager closed), returns without opening.
         */
        void openAndWait() {
            open.run();
            try {
                open.get();
            } catch (CancellationException e) {
                // cancelled before any thread ran it
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaStorageException("Interrupted while opening the log of " + topicPartition, e);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof KafkaStorageException kse) {
                    throw kse;
                }
                throw new KafkaStorageException("Could not open the log of " + topicPartition, e.getCause());
            }
        }

        /** A fresh entry for the same log, to try again after this one's open failed (each entry opens once). */
        Entry retry() {
            Entry next = new Entry(topicPartition, dir, recoveryPoint, logStartOffset, highWatermark, opener);
            next.wanted = wanted;
            return next;
        }

        /** An open not started yet never will; one already running is waited for, whatever its outcome. */
        void cancelAndAwait() {
            if (phase.compareAndSet(PENDING, CANCELLED)) {
                open.cancel(false); // nothing runs it any more; wakes threads waiting in openAndWait
                return;
            }
            if (phase.get() == CANCELLED) {
                return; // cancelled by an earlier call: no open ever started
            }
            boolean interrupted = false;
            while (true) {
                try {
                    opened.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // the open touches this log's files: never return while it runs
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private final ConcurrentHashMap<TopicPartition, Entry> entries = new ConcurrentHashMap<>();

    /** Opens {@code toOpen} on the I/O threads and waits; the first failure is rethrown once all ended. */
    void openAll(Collection<Entry> toOpen, LogIoPool io) {
        if (toOpen.isEmpty()) {
            return;
        }
        List<Callable<Boolean>> opens = new ArrayList<>();
        for (Entry entry : toOpen) {
            opens.add(() -> {
                entry.openAndWait();
                return true;
            });
        }
        try {
            io.runAll(opens, opened -> {});
        } catch (IOException e) {
            throw new KafkaStorageException("Could not open logs", e); // openAndWait throws none, but runAll may
        }
    }

    /** Opens {@code toOpen} on the I/O threads and waits; returns the partitions whose open failed, with why. */
    Map<TopicPartition, KafkaStorageException> openEach(Collection<Entry> toOpen, LogIoPool io) {
        Map<TopicPartition, KafkaStorageException> failed = new java.util.LinkedHashMap<>();
        if (toOpen.isEmpty()) {
            return failed;
        }
        List<Entry> order = List.copyOf(toOpen);
        List<Callable<Boolean>> opens = new ArrayList<>();
        for (Entry entry : order) {
            opens.add(() -> {
                entry.openAndWait();
                return true;
            });
        }
        List<LogIoPool.Outcome<Boolean>> outcomes = io.runEach(opens);
        for (int i = 0; i < order.size(); i++) {
            Throwable failure = outcomes.get(i).failure();
            if (failure != null) {
                failed.put(
                        order.get(i).topicPartition,
                        failure instanceof KafkaStorageException kse
                                ? kse
                                : new KafkaStorageException("Could not open the log", failure));
            }
        }
        return failed;
    }

    /** Opens every entry on the I/O threads without waiting, and logs one line once all are open. */
    void openAllInBackground(LogIoPool io) {
        Collection<Entry> toOpen = all();
        if (toOpen.isEmpty()) {
            return;
        }
        long startNanos = System.nanoTime();
        AtomicInteger remaining = new AtomicInteger(toOpen.size());
        for (Entry entry : toOpen) {
            boolean accepted = io.execute(() -> {
                try {
                    entry.openAndWait();
                } catch (KafkaStorageException e) {
                    log.error("Could not open the log of {}; it is not served", entry.topicPartition, e);
                }
                if (remaining.decrementAndGet() == 0 && entries.isEmpty()) { // not when closing cancelled some
                    log.info(
                            "Opened the {} partition logs deferred at start-up in {} ms",
                            toOpen.size(),
                            (System.nanoTime() - startNanos) / 1_000_000);
                }
            });
            if (!accepted) {
                return; // closing
            }
        }
    }

    void add(Entry entry) {
        entries.put(entry.topicPartition, entry);
    }

    Entry get(TopicPartition tp) {
        return entries.get(tp);
    }

    /** Removes {@code entry} if it is still the one registered for its partition; false when it is not. */
    boolean remove(Entry entry) {
        return entries.remove(entry.topicPartition, entry);
    }

    Entry remove(TopicPartition tp) {
        return entries.remove(tp);
    }

    Set<TopicPartition> partitions() {
        return Set.copyOf(entries.keySet());
    }

    Collection<Entry> all() {
        return List.copyOf(entries.values());
    }

    List<Entry> in(Path logDir) {
        List<Entry> inDir = new ArrayList<>();
        for (Entry entry : entries.values()) {
            if (entry.dir.getParent().equals(logDir)) {
                inDir.add(entry);
            }
        }
        return inDir;
    }
}
