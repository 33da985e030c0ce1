package io.varve.storage;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.progress.ProgressReporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves a replica to another directory of {@code log.dirs} while it stays online (AlterReplicaLogDirs, KIP-113): a
 * future log in {@code <dest>/<topic>-<partition>.<id>-future} copies the current log batch by batch, as a follower
 * copies its leader (so its indexes, leader epochs, aborted-transaction index and producer state are built as the
 * batches arrive, and its producer snapshots taken at its rolls), and catches up with the appends made meanwhile. When
 * it has caught up, the swap runs inside the broker's {@link LogSwapGate} and the current log's lock, so no append
 * slips between: the last batches are copied, the future log is closed (flushed, producer state snapshotted), the
 * current log is retired (writes refused; reads in flight complete) and its directory renamed
 * {@code <topic>-<partition>.<id>-delete}, the future renamed {@code <topic>-<partition>}, and the log opened there
 * replaces the current one. {@link ReplicaMoveRecovery} decides at start-up what a crash between those renames left.
 * The retired log's channels close and its files go after {@code file.delete.delay.ms}.
 *
 * <p>Threading: one copier thread (or the caller of {@link #copyPass()} in tests) owns every future log ({@link
 * ReplicaMove} holds one move and how its future log follows the current one); requests
 * and cancellations only flag a move, which the copier acts on.
 */
final class ReplicaDirMover implements AutoCloseable {

    static final String FUTURE_DIR_SUFFIX = "-future";
    /** Bytes read from the current log per copy step: one fetch's worth. */
    static final int COPY_CHUNK_BYTES = 1 << 20;
    /** The copier's idle re-check; a new move wakes it at once. */
    private static final long IDLE_WAIT_MS = 100;

    private static final Logger log = LoggerFactory.getLogger(ReplicaDirMover.class);

    /** What the mover needs of its log manager. */
    interface Host {
        /** The log serving {@code tp} now, opened, or empty. */
        Optional<PartitionLog> currentLog(TopicPartition tp);

        /** Atomically makes {@code moved} the log of {@code tp} if {@code current} still is; false otherwise. */
        boolean replaceLog(TopicPartition tp, PartitionLog current, PartitionLog moved);

        /** After a swap: the checkpoints of both dirs and the cleaner's state follow the log. */
        void logMoved(PartitionLog from, PartitionLog to);

        /** Around a swap (without the log's lock: a cleaning pass in flight may need it to stop). */
        void pauseCleaning(TopicPartition tp);

        void resumeCleaning(TopicPartition tp);

        LogEvents events();
    }

    private final Host host;
    private final LongSupplier clockMs;
    /** Null without background tasks: tests drive {@link #copyPass()}. */
    private final BackgroundTasks tasks;

    private final ConcurrentHashMap<TopicPartition, ReplicaMove> moves = new ConcurrentHashMap<>();
    /** Moves replaced by a request for another dir, whose future logs the copier drops. */
    private final Set<ReplicaMove> replacedMoves = ConcurrentHashMap.newKeySet();
    /** AlterReplicaLogDirs for a replica not here yet: where it is created (Kafka remembers it too). */
    private final ConcurrentHashMap<TopicPartition, Path> preferredDirs = new ConcurrentHashMap<>();
    /** Retired logs of completed moves, closed and deleted after file.delete.delay.ms (or at close). */
    private final Set<Retired> retired = ConcurrentHashMap.newKeySet();

    private record Retired(PartitionLog log, Path dir, long deleteAtMs) {}

    private final Object wakeUp = new Object();
    private volatile boolean closed;
    private volatile StepFaults faults = StepFaults.NONE;
    private volatile LogSwapGate gate = LogSwapGate.NONE;

    ReplicaDirMover(Host host, LongSupplier clockMs, boolean background) {
        this.host = host;
        this.clockMs = clockMs;
        if (background) {
            this.tasks = new BackgroundTasks("varve-log-dir-mover", 1);
            tasks.scheduleOnce("log-dir-mover", 0, this::copyUntilClosed); // runs until close
        } else {
            this.tasks = null;
        }
    }

    void setGate(LogSwapGate gate) {
        this.gate = gate;
    }

    /** Test seam: {@code faults} runs before each durable step of later swaps. */
    void injectStepFaults(StepFaults faults) {
        this.faults = faults;
    }

    /** Where a new log of {@code tp} goes, once, if AlterReplicaLogDirs asked for it before it existed. */
    Optional<Path> takePreferredDir(TopicPartition tp) {
        return Optional.ofNullable(preferredDirs.remove(tp));
    }

    void preferDir(TopicPartition tp, Path dir) {
        preferredDirs.put(tp, dir);
    }

    /**
     * Starts moving {@code source} to {@code destination} (another log dir): a move of it elsewhere is given up first,
     * as Kafka does; a request for the dir it is in gives up a move in progress and does nothing else.
     */
    synchronized void move(PartitionLog source, Path destination) {
        if (closed) {
            throw new KafkaStorageException("The log manager is closed");
        }
        TopicPartition tp = source.topicPartition();
        ReplicaMove current = moves.get(tp);
        if (current != null
                && !current.cancelled
                && current.source == source
                && current.destination.equals(destination)) {
            return; // already on its way
        }
        if (current != null) {
            synchronized (current.source) { // a swap in progress finishes first
                if (!current.swapping) {
                    current.cancelled = true;
                    moves.remove(tp, current);
                    replacedMoves.add(current);
                }
            }
        }
        if (source.dir().getParent().equals(destination)) {
            return;
        }
        if (source.config().remoteStorageEnable()) {
            throw new KafkaStorageException(
                    "Varve does not move the replica of a tiered topic between log dirs yet: " + tp);
        }
        moves.put(tp, new ReplicaMove(source, destination));
        log.info("Moving the replica of {} from {} to {}", tp, source.dir().getParent(), destination);
        synchronized (wakeUp) {
            wakeUp.notifyAll();
        }
    }

    /** Gives up the move of {@code tp} if one is in progress (its partition is deleted, or moves elsewhere). */
    void cancel(TopicPartition tp) {
        ReplicaMove move = moves.get(tp);
        if (move != null) {
            move.cancelled = true; // the copier drops the future log; a start-up finds it an orphan otherwise
        }
    }

    /** The current log's truncation (a follower's): the future log follows before copying on. */
    void sourceTruncated(PartitionLog partitionLog) {
        ReplicaMove move = moves.get(partitionLog.topicPartition());
        if (move != null && move.source == partitionLog) {
            move.truncatedTo.accumulateAndGet(partitionLog.logEndOffset(), Math::min);
        }
    }

    /** The future replicas, with how far each is behind its current log. */
    List<FutureReplica> futureReplicas() {
        List<FutureReplica> found = new ArrayList<>();
        for (ReplicaMove move : moves.values()) {
            PartitionLog future = move.future;
            long futureEnd = future == null ? move.source.logStartOffset() : future.logEndOffset();
            found.add(new FutureReplica(
                    move.tp,
                    move.destination,
                    future == null ? 0 : future.sizeBytes(),
                    Math.max(0, move.source.logEndOffset() - futureEnd)));
        }
        return found;
    }

    private void copyUntilClosed() {
        while (!closed) {
            boolean worked;
            try {
                worked = copyPass();
            } catch (RuntimeException e) {
                log.error("Replica move pass failed", e);
                worked = false;
            }
            if (!worked) {
                synchronized (wakeUp) {
                    if (!closed) {
                        try {
                            wakeUp.wait(IDLE_WAIT_MS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return;
                        }
                    }
                }
            }
            deleteRetired(clockMs.getAsLong());
        }
    }

    /**
     * One step of every move: a chunk copied, or the swap when the future log caught up. Returns whether there was
     * work (the copier loops without waiting while there is).
     */
    boolean copyPass() {
        boolean worked = false;
        for (ReplicaMove replaced : List.copyOf(replacedMoves)) {
            replacedMoves.remove(replaced);
            abandon(replaced, "another log dir was asked for");
        }
        for (ReplicaMove move : List.copyOf(moves.values())) {
            worked = true;
            try {
                step(move);
            } catch (RuntimeException e) {
                abandon(move, "it failed: " + e.getMessage());
                log.warn("The move of {} to {} failed", move.tp, move.destination, e);
            }
        }
        return worked;
    }

    private void step(ReplicaMove move) {
        Optional<String> why = whyGiveUp(move);
        if (why.isPresent()) {
            abandon(move, why.get());
            return;
        }
        if (move.future == null) {
            move.future = PartitionLog.open(
                    move.futureDir,
                    move.tp,
                    move.source.topicId(),
                    move.source.config(),
                    LogLoader.LoadParams.newLog(clockMs.getAsLong()),
                    futureEvents(),
                    clockMs);
            move.startAtSourceStart();
            move.progress = ProgressReporter.start(
                    "Moving the replica of " + move.tp + " to " + move.destination,
                    move.source.logEndOffset() - move.future.logStartOffset(),
                    "offsets",
                    clockMs,
                    ProgressReporter.DEFAULT_INTERVAL_MS,
                    log::info);
        }
        move.followTruncation();
        boolean caughtUp = move.copyChunk(faults);
        move.progress.progressTo(
                move.future.logEndOffset() - move.future.logStartOffset(),
                move.source.logEndOffset() - move.future.logStartOffset());
        if (caughtUp) {
            swap(move);
        }
    }

    private Optional<String> whyGiveUp(ReplicaMove move) {
        if (closed) {
            return Optional.of("the broker is shutting down");
        }
        if (move.cancelled) {
            return Optional.of("it was cancelled");
        }
        if (host.currentLog(move.tp).orElse(null) != move.source) {
            return Optional.of("its log was deleted or replaced");
        }
        if (move.source.isOffline()) {
            return Optional.of("its log is offline");
        }
        return Optional.empty();
    }

    private void swap(ReplicaMove move) {
        // a cleaning pass must not swap segments into the current log as it is retired
        host.pauseCleaning(move.tp);
        PartitionLog serving;
        try {
            serving = gate.swap(move.tp, () -> swapLocked(move));
        } finally {
            host.resumeCleaning(move.tp);
        }
        if (serving != move.source) {
            moves.remove(move.tp, move);
            move.progress.finish();
            host.logMoved(move.source, serving);
            log.info(
                    "Moved the replica of {} from {} to {} at offset {}",
                    move.tp,
                    move.source.dir().getParent(),
                    move.destination,
                    serving.logEndOffset());
        }
    }

    /** Inside the gate: copies the rest under the current log's lock and swaps; returns the log that now serves. */
    private PartitionLog swapLocked(ReplicaMove move) {
        PartitionLog source = move.source;
        synchronized (source) {
            if (whyGiveUp(move).isPresent()) {
                return source; // the next step gives it up
            }
            move.followTruncation();
            // appends wait on this lock now, so the current log no longer grows: bounded by what came since the check
            int copies = 0;
            while (!move.copyChunk(faults)) {
                if (++copies > 1_000_000) {
                    throw new IllegalStateException("the copy of " + move.tp + " does not converge");
                }
            }
            PartitionLog future = move.future;
            future.updateHighWatermark(source.highWatermark());
            long endOffset = future.logEndOffset();
            Path sourceDir = source.dir();
            Path retiredDir = sourceDir.resolveSibling(
                    sourceDir.getFileName() + "." + move.moveId + LogManager.DELETE_DIR_SUFFIX);
            Path movedDir = move.destination.resolve(sourceDir.getFileName());
            try {
                faults.before("close-future");
                future.close();
                move.swapping = true;
                source.retireForMove();
                faults.before("rename-source");
                Files.move(sourceDir, retiredDir, StandardCopyOption.ATOMIC_MOVE);
                faults.before("fsync-source-dir");
                DurableFiles.fsyncDirectory(sourceDir.getParent());
                faults.before("rename-future");
                Files.move(move.futureDir, movedDir, StandardCopyOption.ATOMIC_MOVE);
                faults.before("fsync-destination-dir");
                DurableFiles.fsyncDirectory(move.destination);
            } catch (IOException e) {
                throw new KafkaStorageException(
                        "The swap of the moved replica of " + move.tp + " failed part way; the partition is offline"
                                + " until restart, which completes or rolls back the move",
                        e);
            }
            PartitionLog moved = PartitionLog.open(
                    movedDir,
                    move.tp,
                    null,
                    source.config(),
                    new LogLoader.LoadParams(
                            true, endOffset, source.logStartOffset(), source.highWatermark(), clockMs.getAsLong()),
                    host.events(),
                    clockMs);
            // loading drops epochs starting at the log end, as a restart of the current log would; it runs on
            assignEpochsAtEnd(source, moved);
            if (!host.replaceLog(move.tp, source, moved)) {
                moved.close(); // deleted meanwhile: the deletion waits on this lock and finds the old log gone
                throw new KafkaStorageException(move.tp + " was deleted while its move completed");
            }
            retire(source, retiredDir);
            return moved;
        }
    }

    /**
     * Leader epochs the current log recorded at its end without a batch yet (a leader elected, nothing appended): the
     * copy could not see them, so they are assigned on the future log too.
     */
    private static void assignEpochsAtEnd(PartitionLog source, PartitionLog future) {
        Set<Integer> known = new HashSet<>();
        for (EpochEntry e : future.leaderEpochEntries()) {
            known.add(e.epoch());
        }
        for (EpochEntry e : source.leaderEpochEntries()) {
            if (!known.contains(e.epoch()) && e.startOffset() >= future.logEndOffset()) {
                future.assignLeaderEpochAtLogEnd(e.epoch());
            }
        }
    }

    /** Reads in flight on the retired log complete: its channels close after file.delete.delay.ms (at once in tests). */
    private void retire(PartitionLog source, Path retiredDir) {
        long delayMs = tasks == null ? 0 : source.config().fileDeleteDelayMs();
        retired.add(new Retired(source, retiredDir, clockMs.getAsLong() + delayMs));
        if (tasks == null) {
            deleteRetired(Long.MAX_VALUE);
        }
    }

    /** Closes and deletes the retired logs due at {@code nowMs}. */
    void deleteRetired(long nowMs) {
        for (Retired done : List.copyOf(retired)) {
            if (done.deleteAtMs() <= nowMs) {
                deleteRetired(done);
            }
        }
    }

    private void deleteRetired(Retired done) {
        if (!retired.remove(done)) {
            return;
        }
        try {
            done.log().close(); // writes nothing: it moved away
        } catch (RuntimeException e) {
            log.debug("Closing the retired log of {} failed", done.log().topicPartition(), e);
        }
        try {
            DurableFiles.deleteRecursively(done.dir());
        } catch (IOException e) {
            log.warn("Could not delete {} yet; the next start-up does", done.dir(), e);
        }
    }

    private void abandon(ReplicaMove move, String why) {
        moves.remove(move.tp, move);
        if (move.swapping) {
            log.error(
                    "The swap of the moved replica of {} into {} failed part way ({}): the partition is offline until"
                            + " a restart completes the move",
                    move.tp,
                    move.destination,
                    why);
            return;
        }
        PartitionLog future = move.future;
        try {
            if (future != null) {
                future.close();
            }
            if (Files.exists(move.futureDir)) {
                DurableFiles.deleteRecursively(move.futureDir);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("Could not delete the future log {}; the next start-up does", move.futureDir, e);
        }
        log.info("Gave up moving the replica of {} to {}: {}", move.tp, move.destination, why);
    }

    /** Future logs only report a failed disk (their dir goes offline); the rest of their events are the mover's. */
    private LogEvents futureEvents() {
        LogEvents managerEvents = host.events();
        return new LogEvents() {
            @Override
            public void logStartOffsetMoved(PartitionLog partitionLog, boolean persistNow) {}

            @Override
            public void segmentsRetired(PartitionLog partitionLog, long deleteDelayMs) {
                managerEvents.segmentsRetired(partitionLog, deleteDelayMs);
            }

            @Override
            public void logDirFailed(PartitionLog partitionLog, Exception cause) {
                managerEvents.logDirFailed(partitionLog, cause);
            }
        };
    }

    /** Gives up every move in progress (their future dirs go), and closes and deletes the retired logs now. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        synchronized (wakeUp) {
            wakeUp.notifyAll();
        }
        if (tasks != null) {
            tasks.shutdown(); // waits for the copier's pass to end
        }
        List<ReplicaMove> left = new ArrayList<>(moves.values());
        left.addAll(replacedMoves);
        replacedMoves.clear();
        for (ReplicaMove move : left) {
            abandon(move, "the broker is shutting down");
        }
        deleteRetired(Long.MAX_VALUE);
    }
}
