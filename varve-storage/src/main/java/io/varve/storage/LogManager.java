package io.varve.storage;

import io.varve.storage.cleaner.CleanerConfig;
import io.varve.storage.cleaner.CleaningResult;
import io.varve.storage.cleaner.LogCleaner;
import io.varve.storage.fs.DurableFiles;
import io.varve.storage.progress.ProgressReporter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the log directories and the partition logs in them: finds every partition directory
 * ({@code <topic>-<partition>}) at start-up, recovering (from their checkpointed recovery points) those
 * of a directory without the clean-shutdown marker before the constructor returns, and opening those of a
 * cleanly shut down directory on first use or in the background ({@link DeferredLogs}); creates logs in the directory holding the fewest;
 * deletes logs by renaming their directory to {@code <topic>-<partition>.<hex>-delete} first so a crash
 * mid-delete never resurrects them. Each log directory is locked against a second broker process.
 *
 * <p>Background work runs on one scheduler ({@link LogManagerConfig}): retention and segment.ms rolls,
 * the recovery-point, log-start-offset and high-watermark checkpoints, flush.ms flushes, producer expiry and the delayed
 * deletion of retired segment files. The {@link LogCleaner} compacts logs on log.cleaner.threads threads of
 * its own. Each piece is also a public method taking the time, so tests drive it with a fake clock and no
 * background tasks.
 */
public final class LogManager implements AutoCloseable {

    public static final String CLEAN_SHUTDOWN_FILE = ".varve-clean-shutdown";
    public static final String DELETE_DIR_SUFFIX = "-delete";
    /** Kafka's delay before the first retention pass after start-up, when the interval is longer. */
    private static final long INITIAL_TASK_DELAY_MS = 30_000L;

    private static final Logger log = LoggerFactory.getLogger(LogManager.class);

    private final List<Path> logDirs;
    private final LogConfig defaultConfig;
    private final LogManagerConfig managerConfig;
    private final LongSupplier clockMs;
    private final LogDirs dirs = new LogDirs();
    private final Map<Path, LogDirCheckpoints> checkpoints = new LinkedHashMap<>();
    private final ConcurrentHashMap<TopicPartition, PartitionLog> logs = new ConcurrentHashMap<>();
    /** Logs of cleanly shut down dirs not opened yet (see {@link DeferredLogs}); a partition is in one map or the other. */
    private final DeferredLogs deferred = new DeferredLogs();

    private final LogEvents events = new Events();
    /** Null when background tasks are off. */
    private final BackgroundTasks tasks;

    private final LogCleaner cleaner;
    /** Null when background tasks or the cleaner are off. */
    private final BackgroundTasks cleanerTasks;

    private final LogIoPool io = new LogIoPool();
    /** Moves replicas between the log dirs (AlterReplicaLogDirs); null until the dirs are loaded. */
    private final ReplicaDirMover mover;

    private volatile boolean closed;
    /** Log dirs that had an I/O failure: their logs answer KAFKA_STORAGE_ERROR and no log is placed in them. */
    private final LogDirFailures failures;

    /** {@link #LogManager(List, LogConfig, LogManagerConfig, LongSupplier)} with default settings and the system clock. */
    public LogManager(List<Path> logDirs, LogConfig defaultConfig) {
        this(logDirs, defaultConfig, LogManagerConfig.defaults(), System::currentTimeMillis);
    }

    /**
     * Opens (creating if needed) the log dirs and loads every partition directory found, then starts the
     * background tasks. Directories ending in {@code -delete} are deleted; logs in a dir without the
     * clean-shutdown marker are recovered.
     */
    public LogManager(
            List<Path> logDirs, LogConfig defaultConfig, LogManagerConfig managerConfig, LongSupplier clockMs) {
        if (logDirs.isEmpty()) {
            throw new IllegalArgumentException("At least one log dir is required");
        }
        this.logDirs = logDirs.stream()
                .map(p -> p.toAbsolutePath().normalize())
                .distinct()
                .toList();
        this.failures = new LogDirFailures(this.logDirs);
        this.defaultConfig = defaultConfig;
        this.managerConfig = managerConfig;
        this.clockMs = clockMs;
        try {
            for (Path dir : this.logDirs) {
                Files.createDirectories(dir);
                dirs.lock(dir);
            }
            ReplicaMoveRecovery.recover(this.logDirs); // before loading: it decides which replica of a move serves
            for (Path dir : this.logDirs) {
                LogDirCheckpoints dirCheckpoints = new LogDirCheckpoints(dir);
                checkpoints.put(dir, dirCheckpoints);
                Path marker = dir.resolve(CLEAN_SHUTDOWN_FILE);
                boolean hadCleanShutdown = Files.exists(marker);
                loadDir(dir, hadCleanShutdown, dirCheckpoints);
                // From now on a crash must trigger recovery, so the marker goes before any write.
                Files.deleteIfExists(marker);
                DurableFiles.fsyncDirectory(dir);
                List<PartitionLog> opened = logsIn(dir);
                if (!opened.isEmpty()) {
                    // recovery moved recovery points; deferred logs alone would rewrite the files as they were read
                    dirCheckpoints.writeAll(opened, deferred.in(dir));
                }
            }
        } catch (IOException | RuntimeException e) {
            closeAfterFailedStart(e);
            if (e instanceof IOException io) {
                throw new KafkaStorageException("Could not open log dirs " + this.logDirs, io);
            }
            throw (RuntimeException) e;
        }
        this.cleaner = new LogCleaner(this.logDirs, managerConfig.cleaner());
        this.mover = new ReplicaDirMover(new MoverHost(), clockMs, managerConfig.backgroundTasks());
        java.util.Set<TopicPartition> held = new java.util.HashSet<>(logs.keySet());
        held.addAll(deferred.partitions());
        cleaner.retainOnly(held);
        this.tasks = managerConfig.backgroundTasks() ? startBackgroundTasks() : null;
        this.cleanerTasks =
                managerConfig.backgroundTasks() && managerConfig.cleaner().runsInBackground()
                        ? startCleanerThreads()
                        : null;
    }

    /** Each cleaner thread cleans until no log qualifies, then backs off log.cleaner.backoff.ms. */
    private BackgroundTasks startCleanerThreads() {
        CleanerConfig c = managerConfig.cleaner();
        BackgroundTasks started = new BackgroundTasks("varve-log-cleaner", c.threads());
        long backoffMs = Math.max(1, c.backoffMs());
        for (int i = 0; i < c.threads(); i++) {
            started.schedulePeriodic(
                    "log-cleaner", backoffMs, backoffMs, () -> cleaner.cleanUntilIdle(this::openLogs, clockMs));
        }
        return started;
    }

    private BackgroundTasks startBackgroundTasks() {
        BackgroundTasks started = new BackgroundTasks("varve-log-manager");
        LogManagerConfig c = managerConfig;
        started.schedulePeriodic(
                "retention",
                Math.min(c.retentionCheckIntervalMs(), INITIAL_TASK_DELAY_MS),
                c.retentionCheckIntervalMs(),
                () -> runRetention(clockMs.getAsLong()));
        started.schedulePeriodic("checkpoints", c.checkpointIntervalMs(), c.checkpointIntervalMs(), this::checkpoint);
        started.schedulePeriodic(
                "high-watermark-checkpoint",
                c.highWatermarkCheckpointIntervalMs(),
                c.highWatermarkCheckpointIntervalMs(),
                this::checkpointHighWatermarks);
        started.schedulePeriodic(
                "producer-expiration",
                c.producerIdExpirationCheckIntervalMs(),
                c.producerIdExpirationCheckIntervalMs(),
                () -> expireProducers(clockMs.getAsLong()));
        if (c.flushSchedulerIntervalMs() != Long.MAX_VALUE) {
            started.schedulePeriodic(
                    "flush",
                    c.flushSchedulerIntervalMs(),
                    c.flushSchedulerIntervalMs(),
                    () -> flushDueLogs(clockMs.getAsLong()));
        }
        return started;
    }

    private void loadDir(Path dir, boolean hadCleanShutdown, LogDirCheckpoints dirCheckpoints) throws IOException {
        long startNanos = System.nanoTime();
        Map<TopicPartition, Long> recoveryPoints = dirCheckpoints.readRecoveryPoints();
        Map<TopicPartition, Long> logStartOffsets = dirCheckpoints.readLogStartOffsets();
        Map<TopicPartition, Long> highWatermarks = dirCheckpoints.readHighWatermarks();
        Map<TopicPartition, Path> toLoad = LogDirs.listPartitionDirs(dir);
        for (Map.Entry<TopicPartition, Path> e : toLoad.entrySet()) {
            PartitionLog open = logs.get(e.getKey());
            DeferredLogs.Entry notOpen = deferred.get(e.getKey());
            if (open != null || notOpen != null) {
                throw new KafkaStorageException("Partition " + e.getKey() + " found in both "
                        + (open != null ? open.dir() : notOpen.dir) + " and " + e.getValue());
            }
        }
        if (hadCleanShutdown && managerConfig.deferOpeningCleanLogs()) {
            for (Map.Entry<TopicPartition, Path> e : toLoad.entrySet()) {
                TopicPartition tp = e.getKey();
                deferred.add(new DeferredLogs.Entry(
                        tp,
                        e.getValue(),
                        recoveryPoints.getOrDefault(tp, -1L),
                        logStartOffsets.getOrDefault(tp, -1L),
                        highWatermarks.getOrDefault(tp, -1L),
                        this::openDeferred));
            }
            log.info(
                    "Found {} partition logs in {} (clean shutdown): each opens on first use or in the background, in {} ms",
                    toLoad.size(),
                    dir,
                    (System.nanoTime() - startNanos) / 1_000_000);
            return;
        }
        // Loading is mostly small file reads and opens: many logs at once keep the disk busy.
        ProgressReporter progress = ProgressReporter.start(
                (hadCleanShutdown ? "Loading log dir " : "Recovering log dir ") + dir,
                toLoad.size(),
                "partitions",
                clockMs,
                ProgressReporter.DEFAULT_INTERVAL_MS,
                log::info);
        List<Callable<PartitionLog>> opens = new ArrayList<>();
        for (Map.Entry<TopicPartition, Path> e : toLoad.entrySet()) {
            TopicPartition tp = e.getKey();
            LogLoader.LoadParams params = new LogLoader.LoadParams(
                    hadCleanShutdown,
                    recoveryPoints.getOrDefault(tp, -1L),
                    logStartOffsets.getOrDefault(tp, -1L),
                    highWatermarks.getOrDefault(tp, -1L),
                    clockMs.getAsLong());
            opens.add(() -> {
                PartitionLog opened = PartitionLog.open(e.getValue(), tp, null, defaultConfig, params, events, clockMs);
                progress.advance(1);
                return opened;
            });
        }
        for (PartitionLog opened : io.runAll(opens, PartitionLog::close)) {
            logs.put(opened.topicPartition(), opened);
        }
        progress.finish();
        log.info(
                "Loaded {} partition logs from {} (clean shutdown {}) in {} ms",
                toLoad.size(),
                dir,
                hadCleanShutdown,
                (System.nanoTime() - startNanos) / 1_000_000);
    }

    /**
     * The log of {@code tp}, created in the log dir with the fewest partitions if absent. For an existing
     * log the topic id is recorded if it had none (and must match otherwise) and {@code config} applied.
     */
    public PartitionLog getOrCreateLog(TopicPartition tp, Uuid topicId, LogConfig config) {
        openIfDeferred(tp); // not under this manager's lock: the open publishes the log under it
        return getOrCreateOpenLog(tp, topicId, config);
    }

    private synchronized PartitionLog getOrCreateOpenLog(TopicPartition tp, Uuid topicId, LogConfig config) {
        ensureOpen();
        PartitionLog existing = logs.get(tp);
        if (existing != null) {
            applySpec(existing, new LogSpec(topicId, config));
            return existing;
        }
        Path parent = mover.takePreferredDir(tp).filter(this::isOnline).orElseGet(this::dirWithFewestLogs);
        PartitionLog created = PartitionLog.open(
                parent.resolve(tp.topic() + "-" + tp.partition()),
                tp,
                topicId,
                config,
                LogLoader.LoadParams.newLog(clockMs.getAsLong()),
                events,
                clockMs);
        try {
            DurableFiles.fsyncDirectory(parent);
        } catch (IOException e) {
            created.close();
            throw new KafkaStorageException("Could not fsync " + parent, e);
        }
        logs.put(tp, created);
        log.info("Created log for {} (topic id {}) in {}", tp, created.topicId(), parent);
        return created;
    }

    /** A log {@link #getOrCreateLogs} should hold. */
    public record LogSpec(Uuid topicId, LogConfig config) {}

    /**
     * {@link #getOrCreateLog} for many partitions at once: the new logs are created in parallel and each log dir
     * is fsynced once, so creating a topic of a thousand partitions costs a few fsync rounds, not a thousand. A log
     * not opened yet stays so and gets the topic id and config when it opens; but one whose config enables remote
     * storage is opened now, so that the remote log manager takes it over before any of its offsets is served.
     */
    public Map<TopicPartition, KafkaStorageException> getOrCreateLogs(Map<TopicPartition, LogSpec> wanted) {
        Map<TopicPartition, KafkaStorageException> failed = new LinkedHashMap<>();
        List<DeferredLogs.Entry> tieredToOpen = new ArrayList<>();
        synchronized (this) {
            for (Map.Entry<TopicPartition, LogSpec> e : wanted.entrySet()) {
                DeferredLogs.Entry entry = deferred.get(e.getKey());
                if (entry != null) {
                    entry.wanted = e.getValue();
                    if (e.getValue().config().remoteStorageEnable()) {
                        tieredToOpen.add(entry);
                    }
                }
            }
        }
        failed.putAll(deferred.openEach(tieredToOpen, io));
        Map<TopicPartition, Path> toCreate = new LinkedHashMap<>();
        synchronized (this) {
            ensureOpen();
            Map<Path, Integer> counts = logCountsByDir();

            for (Map.Entry<TopicPartition, LogSpec> e : wanted.entrySet()) {
                if (deferred.get(e.getKey()) != null || failed.containsKey(e.getKey())) {
                    continue;
                }
                PartitionLog existing = logs.get(e.getKey());
                if (existing != null) {
                    applySpec(existing, e.getValue());
                    continue;
                }
                if (counts.isEmpty()) {
                    failed.put(e.getKey(), new KafkaStorageException("Every log dir is offline"));
                    continue;
                }
                Path parent = mover.takePreferredDir(e.getKey())
                        .filter(counts::containsKey)
                        .orElseGet(() -> counts.entrySet().stream()
                                .min(Map.Entry.comparingByValue())
                                .orElseThrow()
                                .getKey());
                counts.merge(parent, 1, Integer::sum);
                toCreate.put(e.getKey(), parent);
            }
        }
        if (toCreate.isEmpty()) {
            return failed;
        }
        long startNanos = System.nanoTime();
        List<Callable<PartitionLog>> creates = new ArrayList<>();
        for (Map.Entry<TopicPartition, Path> e : toCreate.entrySet()) {
            TopicPartition tp = e.getKey();
            LogSpec spec = wanted.get(tp);
            creates.add(() -> PartitionLog.open(
                    e.getValue().resolve(tp.topic() + "-" + tp.partition()),
                    tp,
                    spec.topicId(),
                    spec.config(),
                    LogLoader.LoadParams.newLog(clockMs.getAsLong()),
                    events,
                    clockMs));
        }
        List<LogIoPool.Outcome<PartitionLog>> outcomes = io.runEach(creates);
        List<TopicPartition> order = new ArrayList<>(toCreate.keySet());
        Map<Path, List<PartitionLog>> createdByDir = new LinkedHashMap<>();
        for (int i = 0; i < order.size(); i++) {
            TopicPartition tp = order.get(i);
            LogIoPool.Outcome<PartitionLog> outcome = outcomes.get(i);
            if (outcome.failure() != null) {
                failed.put(tp, creationFailure(toCreate.get(tp), outcome.failure()));
            } else {
                createdByDir
                        .computeIfAbsent(toCreate.get(tp), d -> new ArrayList<>())
                        .add(outcome.value());
            }
        }
        List<PartitionLog> created = new ArrayList<>();
        for (Map.Entry<Path, List<PartitionLog>> e : createdByDir.entrySet()) {
            try {
                DurableFiles.fsyncDirectory(e.getKey());
                created.addAll(e.getValue());
            } catch (IOException fsyncFailure) {
                for (PartitionLog notDurable : e.getValue()) {
                    notDurable.close();
                    failed.put(notDurable.topicPartition(), creationFailure(e.getKey(), fsyncFailure));
                }
            }
        }
        synchronized (this) {
            for (PartitionLog partitionLog : created) {
                if (closed) {
                    partitionLog.close();
                } else {
                    logs.put(partitionLog.topicPartition(), partitionLog);
                }
            }
        }
        if (!created.isEmpty()) {
            log.info(
                    "Created {} logs in {} in {} ms",
                    created.size(),
                    new java.util.TreeSet<>(createdByDir.keySet()),
                    (System.nanoTime() - startNanos) / 1_000_000);
        }
        return failed;
    }

    /**
     * The exception a failed log creation in {@code dir} reports; a failure that is not a lack of resources takes the
     * dir offline first.
     */
    private KafkaStorageException creationFailure(Path dir, Throwable failure) {
        if (LogDirFailures.isDiskFault(failure)) {
            markDirOffline(dir, failure);
        }
        return failure instanceof KafkaStorageException kse
                ? kse
                : new KafkaStorageException("Could not create a log in " + dir + ": " + failure.getMessage(), failure);
    }

    /**
     * Takes {@code dir} offline after an I/O failure (no space, EIO): its logs answer KAFKA_STORAGE_ERROR, no new log
     * goes there, it is not checkpointed or marked clean at shutdown (so the next start recovers it), and the
     * listener hears of it. Idempotent.
     */
    public void markDirOffline(Path dir, Throwable cause) {
        Path failedDir = dir.toAbsolutePath().normalize();
        if (!failures.markOffline(failedDir)) {
            return;
        }
        List<PartitionLog> inDir = logsIn(failedDir);
        inDir.forEach(PartitionLog::markDirOffline);
        log.error(
                "Log directory {} failed ({}): its {} partition logs are offline and answer KAFKA_STORAGE_ERROR;"
                        + " {} of {} log dirs remain online",
                failedDir,
                cause == null ? "I/O error" : cause.getMessage(),
                inDir.size() + deferred.in(failedDir).size(),
                failures.onlineCount(),
                logDirs.size());
        failures.tellListener(failedDir);
    }

    /** The log dirs that failed since start-up. */
    public java.util.Set<Path> offlineLogDirs() {
        return failures.offlineDirs();
    }

    /** Whether {@code dir} (one of {@link #logDirs()}) has not failed. */
    public boolean isOnline(Path dir) {
        return !failures.isOffline(dir);
    }

    /** Sets who hears of a failed log dir (called once, at start-up, before any log is used). */
    public void onLogDirFailure(java.util.function.Consumer<Path> listener) {
        failures.onFailure(listener);
    }

    /** Records the topic id in an existing log (it must match one already there) and applies the config if it changed. */
    private static void applySpec(PartitionLog existing, LogSpec spec) {
        existing.ensureTopicId(spec.topicId());
        if (!existing.config().equals(spec.config())) {
            existing.updateConfig(spec.config());
        }
    }

    private Path dirWithFewestLogs() {
        return logCountsByDir().entrySet().stream()
                .min(Map.Entry.comparingByValue())
                .orElseThrow(() -> new KafkaStorageException("Every log dir is offline"))
                .getKey();
    }

    private Map<Path, Integer> logCountsByDir() {
        Map<Path, Integer> counts = new LinkedHashMap<>();
        for (Path dir : logDirs) {
            if (!failures.isOffline(dir)) { // an offline dir takes no new log
                counts.put(dir, 0);
            }
        }
        for (PartitionLog partitionLog : logs.values()) {
            counts.computeIfPresent(partitionLog.dir().getParent(), (dir, count) -> count + 1);
        }
        for (DeferredLogs.Entry entry : deferred.all()) {
            counts.computeIfPresent(entry.dir.getParent(), (dir, count) -> count + 1);
        }
        return counts;
    }

    /** The log of {@code tp}, opening it first if start-up deferred that. */
    public Optional<PartitionLog> getLog(TopicPartition tp) {
        PartitionLog open = logs.get(tp);
        if (open != null) {
            return Optional.of(open);
        }
        openIfDeferred(tp);
        return Optional.ofNullable(logs.get(tp));
    }

    /** The open log of {@code tp}, without opening a deferred one. */
    public Optional<PartitionLog> openLogIfPresent(TopicPartition tp) {
        return Optional.ofNullable(logs.get(tp));
    }

    /** Every log, opening those start-up deferred first. */
    public Collection<PartitionLog> allLogs() {
        deferred.openEach(deferred.all(), io); // one that fails to open is left out: it says why when used
        return List.copyOf(logs.values());
    }

    /** The logs opened so far: what background work (retention, flushes, cleaning, tiering) acts on. */
    public Collection<PartitionLog> openLogs() {
        return List.copyOf(logs.values());
    }

    /** The partitions whose logs exist but were not opened yet (a clean start defers opening them). */
    public java.util.Set<TopicPartition> deferredPartitions() {
        return deferred.partitions();
    }

    /** Whether the log of {@code tp} exists but was not opened yet. */
    public boolean isDeferred(TopicPartition tp) {
        return deferred.get(tp) != null;
    }

    /**
     * Opens the logs start-up deferred on the I/O threads, and logs one line when all are open. Brokers call it
     * once they serve requests; a request for a log not opened yet opens it on the spot.
     */
    public void openDeferredLogsInBackground() {
        deferred.openAllInBackground(io);
    }

    private void openIfDeferred(TopicPartition tp) {
        DeferredLogs.Entry entry = deferred.get(tp);
        if (entry != null) {
            if (failures.isOffline(entry.dir.getParent())) {
                throw new KafkaStorageException(
                        "The log of " + tp + " is in the offline log dir " + entry.dir.getParent());
            }
            entry.openAndWait();
        }
    }

    /**
     * The open task of a deferred log: opens it with the config the metadata gave (else the default), publishes it
     * unless it was deleted or the manager closed meanwhile, and replaces it with a new log when the metadata says
     * its partition now belongs to another topic of the same name.
     */
    private void openDeferred(DeferredLogs.Entry entry) {
        LogSpec wanted = entry.wanted;
        LogLoader.LoadParams params = new LogLoader.LoadParams(
                true, entry.recoveryPoint, entry.logStartOffset, entry.highWatermark, clockMs.getAsLong());
        PartitionLog opened;
        try {
            opened = PartitionLog.open(
                    entry.dir,
                    entry.topicPartition,
                    null,
                    wanted == null ? defaultConfig : wanted.config(),
                    params,
                    events,
                    clockMs);
        } catch (RuntimeException e) {
            // each entry opens once: a fresh one lets a later use try again (descriptors may have freed up)
            synchronized (this) {
                if (!closed && deferred.get(entry.topicPartition) == entry) {
                    deferred.remove(entry);
                    deferred.add(entry.retry());
                }
            }
            if (LogDirFailures.isDiskFault(e)) {
                markDirOffline(entry.dir.getParent(), e);
            }
            throw e;
        }
        boolean staleTopic;
        synchronized (this) {
            if (closed || deferred.get(entry.topicPartition) != entry) {
                opened.close();
                return;
            }
            logs.put(entry.topicPartition, opened);
            deferred.remove(entry);
            wanted = entry.wanted; // reconciliation may have run while the log was opening
            staleTopic = wanted != null
                    && !opened.topicId().equals(Uuid.ZERO_UUID)
                    && !opened.topicId().equals(wanted.topicId());
            if (wanted != null && !staleTopic) {
                applySpec(opened, wanted);
            }
        }
        if (staleTopic) {
            log.info(
                    "Deleting log of {} (topic id {}): the metadata gives the partition to topic id {}",
                    entry.topicPartition,
                    opened.topicId(),
                    wanted.topicId());
            deleteLog(entry.topicPartition);
            getOrCreateOpenLog(entry.topicPartition, wanted.topicId(), wanted.config());
        }
    }

    public List<Path> logDirs() {
        return logDirs;
    }

    /**
     * One retention pass at {@code nowMs}: for every log, rolls the active segment if segment.ms elapsed,
     * deletes segments per retention.ms / retention.bytes / log start offset, deletes retired files whose
     * delay is over; then persists log start offsets that moved.
     */
    public void runRetention(long nowMs) {
        forEachLog("retention", log -> {
            log.rollIfSegmentMsElapsed(nowMs);
            log.deleteOldSegments(nowMs);
            log.deleteRetiredSegments(nowMs);
        });
        checkpoints.forEach(
                (dir, dirCheckpoints) -> dirCheckpoints.writeLogStartOffsetsIfDirty(logsIn(dir), deferred.in(dir)));
    }

    /** One cleaner run at {@code nowMs}: cleans the compacted log that needs it most, if any (see {@link LogCleaner}). */
    public Optional<CleaningResult> runCleaner(long nowMs) {
        return cleaner.cleanFilthiestLog(openLogs(), nowMs);
    }

    public LogCleaner cleaner() {
        return cleaner;
    }

    /** Deletes the files of retired segments whose file.delete.delay.ms is over; returns how many. */
    public int deleteRetiredSegments(long nowMs) {
        int deleted = 0;
        for (PartitionLog log : logs.values()) {
            deleted += log.deleteRetiredSegments(nowMs);
        }
        return deleted;
    }

    /** Fsyncs every log with unflushed data whose flush.ms passed since its last flush. */
    public void flushDueLogs(long nowMs) {
        forEachLog("flush", log -> log.flushIfDue(nowMs));
    }

    /** Forgets producers idle for producer.id.expiration.ms in every log. */
    public void expireProducers(long nowMs) {
        forEachLog("producer expiration", log -> log.expireProducers(nowMs, managerConfig.producerIdExpirationMs()));
    }

    /** Writes the recovery-point and log-start-offset checkpoints of every log dir. */
    public void checkpoint() {
        checkpoints.forEach((dir, dirCheckpoints) -> {
            if (!failures.isOffline(dir)) {
                dirCheckpoints.writeAll(logsIn(dir), deferred.in(dir));
            }
        });
    }

    /** Writes the high-watermark checkpoint ({@code replication-offset-checkpoint}) of every log dir. */
    public void checkpointHighWatermarks() {
        checkpoints.forEach((dir, dirCheckpoints) -> {
            if (!failures.isOffline(dir)) {
                dirCheckpoints.writeHighWatermarks(logsIn(dir), deferred.in(dir));
            }
        });
    }

    private void forEachLog(String what, java.util.function.Consumer<PartitionLog> action) {
        for (PartitionLog log : logs.values()) {
            try {
                action.accept(log);
            } catch (KafkaStorageException e) {
                // the log went offline and said why; the others carry on
                LogManager.log.warn("{} of {} failed: {}", what, log.dir().getFileName(), e.getMessage());
            }
        }
    }

    private List<PartitionLog> logsIn(Path dir) {
        return logs.values().stream()
                .filter(log -> log.dir().getParent().equals(dir))
                .toList();
    }

    /** Closes the log, renames its dir to {@code <topic>-<partition>.<hex>-delete}, then deletes it. */
    public void deleteLog(TopicPartition tp) {
        mover.cancel(tp);
        DeferredLogs.Entry entry;
        synchronized (this) {
            entry = deferred.remove(tp);
        }
        if (entry != null) {
            entry.cancelAndAwait(); // an open already running finds its entry gone and closes what it opened
        }
        deleteOpenLog(tp, entry == null ? null : entry.dir);
    }

    private synchronized void deleteOpenLog(TopicPartition tp, Path deferredDir) {
        PartitionLog removed = logs.remove(tp);
        if (removed == null && deferredDir == null) {
            return;
        }
        cleaner.abortAndPause(tp);
        if (removed != null) {
            removed.close();
        }
        Path dir = removed != null ? removed.dir() : deferredDir;
        cleaner.forget(tp, dir.getParent());
        Path doomed = dir.resolveSibling(
                dir.getFileName() + "." + UUID.randomUUID().toString().replace("-", "") + DELETE_DIR_SUFFIX);
        try {
            Files.move(dir, doomed, StandardCopyOption.ATOMIC_MOVE);
            DurableFiles.fsyncDirectory(dir.getParent());
        } catch (IOException e) {
            throw new KafkaStorageException("Could not rename " + dir + " for deletion", e);
        }
        try {
            DurableFiles.deleteRecursively(doomed);
            log.info("Deleted log for {} ({})", tp, dir);
        } catch (IOException e) {
            // renamed already, so it is gone for the broker; the next start-up finishes the job
            log.warn("Renamed {} for deletion but could not delete it yet", doomed, e);
        }
    }

    /**
     * Stops the background tasks, flushes and closes every log (each snapshots its producer state), writes
     * the checkpoints, then marks each log dir whose logs all closed cleanly.
     */
    @Override
    public void close() {
        // An open already running publishes its log, which is closed below; the others stay deferred, and their
        // checkpointed offsets are written again as read.
        mover.close();
        for (DeferredLogs.Entry entry : deferred.all()) {
            entry.cancelAndAwait();
        }
        closeOpenLogs();
    }

    private synchronized void closeOpenLogs() {
        if (closed) {
            return;
        }
        closed = true;
        cleaner.shutdown();
        if (cleanerTasks != null) {
            cleanerTasks.shutdown();
        }
        if (tasks != null) {
            tasks.shutdown();
        }
        List<Path> uncleanDirs = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Future<?>> closing = new ArrayList<>();
        for (PartitionLog partitionLog : logs.values()) {
            closing.add(io.submit(() -> {
                try {
                    if (partitionLog.isOffline()) {
                        uncleanDirs.add(partitionLog.dir().getParent());
                    }
                    partitionLog.close();
                } catch (RuntimeException e) {
                    uncleanDirs.add(partitionLog.dir().getParent());
                    log.error(
                            "Closing log {} failed; its log dir will be recovered at next start-up",
                            partitionLog.dir(),
                            e);
                }
            }));
        }
        for (Future<?> f : closing) {
            try {
                f.get();
            } catch (ExecutionException e) {
                log.error("Closing a log failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        io.shutdown();
        uncleanDirs.addAll(failures.offlineDirs());
        for (Path dir : logDirs) {
            if (failures.isOffline(dir)) {
                continue; // not checkpointed nor marked clean: the next start recovers it
            }
            try {
                checkpoints.get(dir).writeAll(logsIn(dir), deferred.in(dir));
            } catch (RuntimeException e) {
                uncleanDirs.add(dir);
                log.error("Could not write the offset checkpoints of {}", dir, e);
            }
        }
        logs.clear();
        for (Path dir : logDirs) {
            if (uncleanDirs.contains(dir)) {
                continue;
            }
            try {
                Files.write(dir.resolve(CLEAN_SHUTDOWN_FILE), new byte[0]);
                DurableFiles.fsyncDirectory(dir);
            } catch (IOException e) {
                log.error("Could not write the clean-shutdown marker in {}", dir, e);
            }
        }
        dirs.releaseLocks();
        log.info("Closed log manager for {}", logDirs);
    }

    /** Told the duration of each log flush in nanoseconds (the metrics); none until set. */
    private volatile java.util.function.LongConsumer flushTimeListener = nanos -> {};

    /** Reports the duration of every later log flush, in nanoseconds, to {@code listener}. */
    public void onLogFlush(java.util.function.LongConsumer listener) {
        this.flushTimeListener = listener;
    }

    /** Routes a log's events to the checkpoints and the scheduler. */
    private final class Events implements LogEvents {
        @Override
        public void logFlushed(PartitionLog partitionLog, long nanos) {
            flushTimeListener.accept(nanos);
        }

        @Override
        public void logStartOffsetMoved(PartitionLog partitionLog, boolean persistNow) {
            Path dir = partitionLog.dir().getParent();
            LogDirCheckpoints dirCheckpoints = checkpoints.get(dir);
            if (dirCheckpoints == null) {
                return;
            }
            dirCheckpoints.markLogStartOffsetsDirty();
            if (persistNow) {
                dirCheckpoints.writeLogStartOffsets(logsIn(dir), deferred.in(dir));
            }
        }

        @Override
        public void truncationStarting(PartitionLog partitionLog) {
            if (cleaner != null) {
                cleaner.abortAndPause(partitionLog.topicPartition());
            }
        }

        @Override
        public void truncationEnded(PartitionLog partitionLog) {
            if (cleaner != null) {
                cleaner.truncateCheckpoint(partitionLog, partitionLog.logEndOffset());
                cleaner.resume(partitionLog.topicPartition());
            }
        }

        @Override
        public void logTruncated(PartitionLog partitionLog) {
            if (mover != null) {
                mover.sourceTruncated(partitionLog);
            }
            Path dir = partitionLog.dir().getParent();
            LogDirCheckpoints dirCheckpoints = checkpoints.get(dir);
            if (dirCheckpoints != null && !failures.isOffline(dir)) {
                dirCheckpoints.writeAll(logsIn(dir), deferred.in(dir));
            }
        }

        @Override
        public void logDirFailed(PartitionLog partitionLog, Exception cause) {
            markDirOffline(partitionLog.dir().getParent(), cause);
        }

        @Override
        public void segmentRolled(PartitionLog partitionLog) {
            if (tasks == null) {
                partitionLog.syncRolledSegments();
            } else {
                tasks.scheduleOnce("sync-rolled-segments", 0, partitionLog::syncRolledSegments);
            }
        }

        @Override
        public void segmentsRetired(PartitionLog partitionLog, long deleteDelayMs) {
            if (tasks != null) {
                tasks.scheduleOnce(
                        "delete-retired-segments",
                        deleteDelayMs,
                        () -> partitionLog.deleteRetiredSegments(clockMs.getAsLong()));
            }
        }
    }

    /**
     * AlterReplicaLogDirs: moves the replica of {@code tp} to {@code logDir} (one of {@link #logDirs()}) while it
     * stays online ({@link ReplicaDirMover}); nothing when it is there already (a move elsewhere in progress is given
     * up). Like Kafka, no move starts while a log dir is offline.
     *
     * @throws KafkaStorageException a log dir is offline, or the replica cannot be moved (a tiered topic's)
     * @throws IllegalArgumentException no log of {@code tp} here, or {@code logDir} is not a log dir
     */
    public void moveReplica(TopicPartition tp, Path logDir) {
        Path destination = logDir.toAbsolutePath().normalize();
        if (!logDirs.contains(destination)) {
            throw new IllegalArgumentException(destination + " is not one of the log dirs " + logDirs);
        }
        PartitionLog current =
                getLog(tp).orElseThrow(() -> new IllegalArgumentException("No replica of " + tp + " here"));
        if (!current.dir().getParent().equals(destination)
                && !failures.offlineDirs().isEmpty()) {
            throw new KafkaStorageException(
                    "Not moving " + tp + " while log dirs " + failures.offlineDirs() + " are offline");
        }
        mover.move(current, destination);
    }

    /** AlterReplicaLogDirs for a replica not here yet: its log is created in {@code logDir} (Kafka does so too). */
    public void preferLogDir(TopicPartition tp, Path logDir) {
        mover.preferDir(tp, logDir.toAbsolutePath().normalize());
    }

    /** The replicas being moved into another log dir (DescribeLogDirs' future replicas). */
    public List<FutureReplica> futureReplicas() {
        return mover.futureReplicas();
    }

    /** Sets how the broker keeps its writers out while a moved replica takes over (called once, at start-up). */
    public void onReplicaSwap(LogSwapGate gate) {
        mover.setGate(gate);
    }

    /** Test seam: the mover, to drive its copy passes without background tasks. */
    ReplicaDirMover replicaMover() {
        return mover;
    }

    private final class MoverHost implements ReplicaDirMover.Host {
        @Override
        public Optional<PartitionLog> currentLog(TopicPartition tp) {
            return Optional.ofNullable(logs.get(tp));
        }

        @Override
        public boolean replaceLog(TopicPartition tp, PartitionLog current, PartitionLog moved) {
            return !closed && logs.replace(tp, current, moved);
        }

        @Override
        public void logMoved(PartitionLog from, PartitionLog to) {
            cleaner.forget(from.topicPartition(), from.dir().getParent());
            checkpoint();
            checkpointHighWatermarks();
        }

        @Override
        public void pauseCleaning(TopicPartition tp) {
            cleaner.abortAndPause(tp);
        }

        @Override
        public void resumeCleaning(TopicPartition tp) {
            cleaner.resume(tp);
        }

        @Override
        public LogEvents events() {
            return events;
        }
    }

    private void closeAfterFailedStart(Exception cause) {
        io.shutdown();
        for (PartitionLog partitionLog : logs.values()) {
            try {
                partitionLog.close();
            } catch (RuntimeException e) {
                cause.addSuppressed(e);
            }
        }
        logs.clear();
        dirs.releaseLocks();
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("Log manager is closed");
        }
    }
}
