package io.varve.storage.cleaner;

import io.varve.storage.PartitionLog;
import io.varve.storage.segment.CorruptSegmentException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compacts logs whose cleanup.policy contains compact. Each call of {@link #cleanFilthiestLog} picks one
 * log, as Kafka does: the one with the highest dirty ratio at or above its min.cleanable.dirty.ratio or
 * whose oldest dirty batch waited longer than max.compaction.lag.ms; failing that, one whose kept
 * tombstones reached their delete horizon (so deletes complete on an idle log). Then one
 * {@link CleaningPass} runs on the calling thread and the {@code cleaner-offset-checkpoint} moves.
 *
 * <p>Threads: any number of callers may clean at once (the log manager runs log.cleaner.threads of them,
 * each backing off log.cleaner.backoff.ms when idle); a log is cleaned by one at a time. Time is passed
 * in, so tests drive it with a fake clock. A log whose data turns out corrupt is not cleaned again until
 * restart. Pending delete horizons live in memory: after a restart a log's tombstones go at its next pass.
 */
public final class LogCleaner {

    private static final Logger log = LoggerFactory.getLogger(LogCleaner.class);
    private static final long ABORT_WAIT_MS = 30_000L;

    /** A pass in flight, and whether it was asked to stop. */
    private static final class InFlight {
        volatile boolean aborted;
    }

    private final CleanerConfig config;
    private final CleanerCheckpoints checkpoints;
    private final Map<TopicPartition, Long> pendingHorizonsMs = new ConcurrentHashMap<>();
    private final Set<TopicPartition> uncleanable = ConcurrentHashMap.newKeySet();
    private final ConcurrentLinkedQueue<KeyOffsetMap> spareMaps = new ConcurrentLinkedQueue<>();
    /** Guarded by this. */
    private final Map<TopicPartition, InFlight> inProgress = new HashMap<>();
    /** Guarded by this: logs being deleted. */
    private final Set<TopicPartition> paused = new HashSet<>();

    private volatile boolean shuttingDown;

    /** Reads the cleaner checkpoints of {@code logDirs}. */
    public LogCleaner(Collection<Path> logDirs, CleanerConfig config) {
        this.config = config;
        this.checkpoints = new CleanerCheckpoints(logDirs);
    }

    public CleanerConfig config() {
        return config;
    }

    /** Drops the checkpoints of partitions that no longer have a log. */
    public void retainOnly(Collection<TopicPartition> existing) {
        checkpoints.retainOnly(existing);
    }

    /** The stored cleaner checkpoint of {@code log}: everything below it was deduplicated. */
    public OptionalLong checkpoint(PartitionLog partitionLog) {
        return checkpoints.get(partitionLog.dir().getParent(), partitionLog.topicPartition());
    }

    /**
     * Picks the log that needs cleaning most among {@code logs} (see the class comment) and cleans it.
     *
     * @return what the pass did; empty when no log qualified or the pass did nothing, was aborted or failed
     */
    public Optional<CleaningResult> cleanFilthiestLog(Collection<PartitionLog> logs, long nowMs) {
        Selected selected = select(logs, nowMs);
        return selected == null ? Optional.empty() : Optional.ofNullable(run(selected, nowMs));
    }

    /** Cleans {@code partitionLog} now, however dirty (tests and tools); empty as for {@link #cleanFilthiestLog}. */
    public Optional<CleaningResult> clean(PartitionLog partitionLog, long nowMs) {
        Selected selected;
        synchronized (this) {
            TopicPartition tp = partitionLog.topicPartition();
            if (shuttingDown || busy(tp)) {
                return Optional.empty();
            }
            LogToClean target = inspect(partitionLog, nowMs);
            if (target == null) {
                return Optional.empty();
            }
            selected = new Selected(target, new InFlight());
            inProgress.put(tp, selected.inFlight());
        }
        return Optional.ofNullable(run(selected, nowMs));
    }

    /** The clock of a long pass's progress lines: the background threads' clock once they run. */
    private volatile LongSupplier progressClockMs = System::currentTimeMillis;

    /**
     * The body of a background cleaner thread: passes until no log qualifies, at most one per log, so a
     * run is bounded and then the thread backs off.
     */
    public int cleanUntilIdle(Supplier<Collection<PartitionLog>> logs, LongSupplier clockMs) {
        progressClockMs = clockMs;
        int maxPasses = Math.max(1, logs.get().size());
        int passes = 0;
        while (passes < maxPasses
                && !shuttingDown
                && cleanFilthiestLog(logs.get(), clockMs.getAsLong()).isPresent()) {
            passes++;
        }
        return passes;
    }

    /** Stops a pass on {@code tp} in flight (waiting for it, bounded) and starts none until {@link #resume}. */
    public synchronized void abortAndPause(TopicPartition tp) {
        paused.add(tp);
        InFlight inFlight = inProgress.get(tp);
        if (inFlight != null) {
            inFlight.aborted = true;
        }
        long deadlineNanos = System.nanoTime() + ABORT_WAIT_MS * 1_000_000;
        while (inProgress.containsKey(tp)) {
            long leftMs = (deadlineNanos - System.nanoTime()) / 1_000_000;
            if (leftMs <= 0) {
                log.warn("Cleaning of {} did not stop within {} ms", tp, ABORT_WAIT_MS);
                return;
            }
            try {
                wait(leftMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    public synchronized void resume(TopicPartition tp) {
        paused.remove(tp);
    }

    /**
     * The log was truncated to {@code logEndOffset}: a checkpoint past it would call batches of the new lineage
     * clean, so it comes down to the end (call while cleaning of the log is paused).
     */
    public synchronized void truncateCheckpoint(PartitionLog partitionLog, long logEndOffset) {
        Path logDir = partitionLog.dir().getParent();
        OptionalLong stored = checkpoints.get(logDir, partitionLog.topicPartition());
        if (stored.isPresent() && stored.getAsLong() > logEndOffset) {
            checkpoints.update(logDir, partitionLog.topicPartition(), logEndOffset);
        }
    }

    /** Forgets everything about a deleted log, its checkpoint included (call after {@link #abortAndPause}). */
    public synchronized void forget(TopicPartition tp, Path logDir) {
        checkpoints.remove(logDir, tp);
        pendingHorizonsMs.remove(tp);
        uncleanable.remove(tp);
        paused.remove(tp);
    }

    /** Aborts passes in flight and starts no new one; callers wait for their threads. */
    public synchronized void shutdown() {
        shuttingDown = true;
        inProgress.values().forEach(inFlight -> inFlight.aborted = true);
    }

    private record Selected(LogToClean target, InFlight inFlight) {}

    private synchronized Selected select(Collection<PartitionLog> logs, long nowMs) {
        if (shuttingDown) {
            return null;
        }
        LogToClean filthiest = null;
        LogToClean horizonDue = null;
        for (PartitionLog candidate : logs) {
            TopicPartition tp = candidate.topicPartition();
            if (!candidate.config().compacts() || busy(tp)) {
                continue;
            }
            LogToClean target = inspect(candidate, nowMs);
            if (target == null) {
                continue;
            }
            if (target.needsCleaning()) {
                if (filthiest == null || target.dirtyRatio() > filthiest.dirtyRatio()) {
                    filthiest = target;
                }
            } else if (horizonDue == null && pendingHorizonsMs.getOrDefault(tp, Long.MAX_VALUE) <= nowMs) {
                horizonDue = target;
            }
        }
        LogToClean chosen = filthiest != null ? filthiest : horizonDue;
        if (chosen == null) {
            return null;
        }
        Selected selected = new Selected(chosen, new InFlight());
        inProgress.put(chosen.log().topicPartition(), selected.inFlight());
        return selected;
    }

    private boolean busy(TopicPartition tp) {
        return inProgress.containsKey(tp) || paused.contains(tp) || uncleanable.contains(tp);
    }

    /** The log's cleanable state, or null when it is offline, unreadable or has nothing cleanable. */
    private LogToClean inspect(PartitionLog partitionLog, long nowMs) {
        if (partitionLog.isOffline()) {
            return null;
        }
        try {
            LogToClean target =
                    LogToClean.of(partitionLog, checkpoint(partitionLog).orElse(-1), nowMs);
            return target.cleanBytes() + target.dirtyBytes() > 0 ? target : null;
        } catch (IOException | KafkaStorageException e) {
            log.warn(
                    "{}: cannot inspect the log for cleaning: {}",
                    partitionLog.dir().getFileName(),
                    e.toString());
            return null;
        }
    }

    private CleaningResult run(Selected selected, long nowMs) {
        LogToClean target = selected.target();
        PartitionLog partitionLog = target.log();
        TopicPartition tp = partitionLog.topicPartition();
        String name = partitionLog.dir().getFileName().toString();
        KeyOffsetMap map = takeMap(target);
        try {
            CleaningResult result = new CleaningPass(
                            target, map, nowMs, () -> selected.inFlight().aborted || shuttingDown, progressClockMs)
                    .run();
            if (result == null) {
                pendingHorizonsMs.remove(tp);
                return null;
            }
            checkpoints.update(partitionLog.dir().getParent(), tp, result.endOffset());
            if (result.earliestTombstoneHorizonMs() == Long.MAX_VALUE) {
                pendingHorizonsMs.remove(tp);
            } else {
                pendingHorizonsMs.put(tp, result.earliestTombstoneHorizonMs());
            }
            log.info(
                    "{}: cleaned dirty offsets [{}, {}), rewrote offsets [{}, {}): {} -> {} bytes, {} -> {} segments, "
                            + "{} of {} records kept, in {} ms",
                    name,
                    result.firstDirtyOffset(),
                    result.endOffset(),
                    target.segments().get(0).baseOffset(),
                    result.endOffset(),
                    result.bytesBefore(),
                    result.bytesAfter(),
                    result.segmentsBefore(),
                    result.segmentsAfter(),
                    result.recordsKept(),
                    result.recordsRead(),
                    result.durationMs());
            return result;
        } catch (CancellationException e) {
            log.info("{}: cleaning aborted", name);
        } catch (KafkaStorageException e) {
            log.warn("{}: cleaning stopped, the log is offline or closed: {}", name, e.getMessage());
        } catch (IllegalArgumentException e) {
            log.info(
                    "{}: segments changed during cleaning (retention ran); the next pass retries: {}",
                    name,
                    e.getMessage());
        } catch (CorruptSegmentException e) {
            uncleanable.add(tp);
            log.error("{}: cleaning found corrupt data; the log will not be cleaned until restart", name, e);
        } catch (IOException e) {
            log.warn("{}: cleaning failed; the next pass retries", name, e);
        } catch (RuntimeException e) {
            uncleanable.add(tp);
            log.error("{}: cleaning failed; the log will not be cleaned until restart", name, e);
        } finally {
            if (spareMaps.size() < Math.max(1, config.threads())) {
                spareMaps.add(map);
            }
            synchronized (this) {
                inProgress.remove(tp);
                notifyAll();
            }
        }
        return null;
    }

    /** A map big enough for the dirty range's offsets, within this thread's share of the dedupe buffer. */
    private KeyOffsetMap takeMap(LogToClean target) {
        int maxSlots = KeyOffsetMap.slotsFor(config.dedupeBufferBytesPerThread());
        int wanted = Math.min(
                maxSlots, KeyOffsetMap.slotsToHold(target.firstUncleanableOffset() - target.firstDirtyOffset()));
        for (KeyOffsetMap spare = spareMaps.poll(); spare != null; spare = spareMaps.poll()) {
            if (spare.slots() >= wanted) {
                return spare;
            }
        }
        return new KeyOffsetMap(wanted);
    }
}
