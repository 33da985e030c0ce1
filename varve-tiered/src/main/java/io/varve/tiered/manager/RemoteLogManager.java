package io.varve.tiered.manager;

import io.varve.storage.PartitionLog;
import io.varve.storage.progress.ProgressReporter;
import io.varve.tiered.metadata.RemoteLogMetadataCache;
import io.varve.tiered.metadata.RemoteLogMetadataStore;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.TopicIdPartition;
import io.varve.tiered.spi.RemoteStorage;
import io.varve.tiered.spi.RemoteStorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's remote log manager (KIP-405), write side: for every partition this broker leads whose topic has
 * remote storage on, uploads rolled segments below the high watermark in offset order, deletes remote segments by
 * retention, and deletes the remote data of deleted topics; local retention then frees local copies of what is
 * confirmed uploaded ({@code PartitionLog.updateHighestUploadedOffset}). Remote segment metadata is durable in one
 * {@link RemoteLogMetadataStore} per log dir. A tick every {@code remote.log.manager.task.interval.ms} submits each
 * due {@link PartitionTask} to a pool of {@code remote.log.manager.copier.thread.pool.size} threads (a partition
 * runs on one thread at a time); uploads share one {@link CopyThrottle}. The first tick cleans up what a crash left
 * half done (segments to clean up in every store), so no orphan object survives a restart.
 *
 * <p>Readers (the remote fetch path) use {@link #remoteStorage()} and the copied-segment queries.
 */
public final class RemoteLogManager implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RemoteLogManager.class);
    private static final long CLOSE_WAIT_MS = 30_000L;

    /** Counters since start-up. */
    public record Stats(long segmentsCopied, long bytesCopied, long segmentsDeleted, long failedRuns) {}

    /**
     * The manager runs in a cluster: only the leader of a partition uploads and deletes its remote segments (told by
     * {@link #onBecomingLeader} / {@link #onResigning}), the metadata is journaled in the remote tier
     * ({@link RemoteMetadataJournal}) and synced from it, and a partition's remote data is deleted only when
     * {@code topicExists} says its topic id is gone from the cluster metadata (a log can also go by reassignment).
     */
    public record ClusterMode(java.util.function.Predicate<Uuid> topicExists) {}

    /** What partition tasks share. */
    record Context(
            RemoteSegmentLifecycle lifecycle,
            RetryBackoff backoff,
            LongSupplier clockMs,
            StatsCounters stats,
            Function<PartitionLog, Long> cleanedUpTo,
            Supplier<Boolean> isClosing,
            RemoteMetadataJournal journal,
            Function<TopicPartition, Integer> leaderEpochs) {
        boolean closing() {
            return isClosing.get();
        }

        /** In a cluster: whether this broker leads the partition. */
        boolean clustered() {
            return journal != null;
        }

        /** The epoch this broker leads {@code tp} in, or null (a follower; always -1 on a lone node). */
        Integer leaderEpoch(TopicPartition tp) {
            return journal == null ? Integer.valueOf(-1) : leaderEpochs.apply(tp);
        }

        long cleanedUpToOffset(PartitionLog partitionLog) {
            return cleanedUpTo.apply(partitionLog);
        }
    }

    /** Thread-safe counters behind {@link Stats}. */
    static final class StatsCounters {
        private final AtomicLong segmentsCopied = new AtomicLong();
        private final AtomicLong bytesCopied = new AtomicLong();
        private final AtomicLong segmentsDeleted = new AtomicLong();
        private final AtomicLong failedRuns = new AtomicLong();

        void copied(long bytes) {
            segmentsCopied.incrementAndGet();
            bytesCopied.addAndGet(bytes);
        }

        void deleted() {
            segmentsDeleted.incrementAndGet();
        }

        void failed() {
            failedRuns.incrementAndGet();
        }

        Stats snapshot() {
            return new Stats(segmentsCopied.get(), bytesCopied.get(), segmentsDeleted.get(), failedRuns.get());
        }
    }

    private final RemoteLogManagerConfig config;
    private final RemoteStorage storage;
    private final Map<Path, RemoteLogMetadataStore> stores;
    private final Supplier<Collection<PartitionLog>> logs;
    /** Partitions whose local log exists but is not open yet: never mistaken for deleted topics. */
    private final java.util.function.Predicate<TopicPartition> notYetOpened;

    private final LongSupplier clockMs;
    private final FaultPoints faults;
    private final StatsCounters stats = new StatsCounters();
    private final Context context;
    private final Map<TopicIdPartition, PartitionTask> tasks = new ConcurrentHashMap<>();
    /** In a cluster: the partitions this broker leads, with their leader epochs. */
    private final Map<TopicPartition, Integer> leaderEpochs = new ConcurrentHashMap<>();

    private final ClusterMode cluster;
    private final ExecutorService copiers;
    private final ScheduledExecutorService scheduler;
    private final Path emptySnapshot;
    private volatile boolean startupCleanupDone;
    private volatile boolean closing;

    private RemoteLogManager(
            RemoteLogManagerConfig config,
            RemoteStorage storage,
            Map<Path, RemoteLogMetadataStore> stores,
            Supplier<Collection<PartitionLog>> logs,
            java.util.function.Predicate<TopicPartition> notYetOpened,
            LongSupplier clockMs,
            ToLongFunction<PartitionLog> cleanedUpTo,
            boolean background,
            Path emptySnapshot,
            ClusterMode cluster) {
        this.config = config;
        this.cluster = cluster;
        this.notYetOpened = notYetOpened;
        this.storage = storage;
        this.stores = stores;
        this.logs = logs;
        this.clockMs = clockMs;
        this.emptySnapshot = emptySnapshot;
        this.faults = new FaultPoints(config.pause());
        CopyThrottle throttle = new CopyThrottle(config.copyMaxBytesPerSecond(), System::nanoTime);
        RemoteMetadataJournal journal = cluster == null ? null : new RemoteMetadataJournal(storage, clockMs);
        this.context = new Context(
                new RemoteSegmentLifecycle(storage, throttle, faults, clockMs, emptySnapshot, journal),
                config.backoff(),
                clockMs,
                stats,
                cleanedUpTo::applyAsLong,
                () -> closing,
                journal,
                leaderEpochs::get);
        this.copiers =
                background ? Executors.newFixedThreadPool(config.copierThreads(), daemon("varve-rlm-copier")) : null;
        this.scheduler = background ? Executors.newSingleThreadScheduledExecutor(daemon("varve-rlm-scheduler")) : null;
    }

    /**
     * Opens the metadata store of every log dir and, with {@code background}, starts the periodic tick. Without it
     * the caller drives the manager with {@link #runOnce()} (tests).
     *
     * @param logs        the partition logs this broker leads (on one node: all of them)
     * @param cleanedUpTo for a compacted log, the offset below which the cleaner has deduplicated it (its cleaner
     *                    checkpoint), else {@link Long#MAX_VALUE}
     */
    public static RemoteLogManager start(
            RemoteLogManagerConfig config,
            RemoteStorage storage,
            List<Path> logDirs,
            Supplier<Collection<PartitionLog>> logs,
            ToLongFunction<PartitionLog> cleanedUpTo,
            LongSupplier clockMs,
            boolean background)
            throws IOException {
        return start(config, storage, logDirs, logs, tp -> false, cleanedUpTo, clockMs, background);
    }

    /**
     * {@link #start(RemoteLogManagerConfig, RemoteStorage, List, Supplier, ToLongFunction, LongSupplier, boolean)}
     * for a broker that opens some logs after start-up: {@code logs} gives the open ones, and the remote data of a
     * partition {@code notYetOpened} holds is left alone until its log opens. A log with remote storage enabled
     * must be open before this is called, so its log start offset is restored before its offsets are served.
     */
    public static RemoteLogManager start(
            RemoteLogManagerConfig config,
            RemoteStorage storage,
            List<Path> logDirs,
            Supplier<Collection<PartitionLog>> logs,
            java.util.function.Predicate<TopicPartition> notYetOpened,
            ToLongFunction<PartitionLog> cleanedUpTo,
            LongSupplier clockMs,
            boolean background)
            throws IOException {
        return start(config, storage, logDirs, logs, notYetOpened, cleanedUpTo, clockMs, background, null);
    }

    /**
     * {@link #start(RemoteLogManagerConfig, RemoteStorage, List, Supplier, java.util.function.Predicate,
     * ToLongFunction, LongSupplier, boolean)} in a cluster ({@code cluster} non-null): nothing is uploaded or deleted
     * for a partition until {@link #onBecomingLeader} names it.
     */
    public static RemoteLogManager start(
            RemoteLogManagerConfig config,
            RemoteStorage storage,
            List<Path> logDirs,
            Supplier<Collection<PartitionLog>> logs,
            java.util.function.Predicate<TopicPartition> notYetOpened,
            ToLongFunction<PartitionLog> cleanedUpTo,
            LongSupplier clockMs,
            boolean background,
            ClusterMode cluster)
            throws IOException {
        Map<Path, RemoteLogMetadataStore> stores = new LinkedHashMap<>();
        try {
            for (Path dir : logDirs) {
                Path normalized = dir.toAbsolutePath().normalize();
                stores.put(normalized, RemoteLogMetadataStore.open(normalized));
            }
        } catch (IOException | RuntimeException e) {
            for (RemoteLogMetadataStore store : stores.values()) {
                store.close();
            }
            throw e;
        }
        Path emptySnapshot = Files.createTempFile("varve-empty-producer-snapshot", ".snapshot");
        emptySnapshot.toFile().deleteOnExit();
        RemoteLogManager manager = new RemoteLogManager(
                config, storage, stores, logs, notYetOpened, clockMs, cleanedUpTo, background, emptySnapshot, cluster);
        manager.takeOverTieredLogs();
        if (background) {
            manager.scheduler.scheduleWithFixedDelay(
                    manager::tickGuarded, 0, config.taskIntervalMs(), TimeUnit.MILLISECONDS);
        }
        log.info(
                "Remote log manager started: {} log dirs, {} copier threads, task interval {} ms, copy limit {} bytes/s",
                stores.size(),
                config.copierThreads(),
                config.taskIntervalMs(),
                config.copyMaxBytesPerSecond() == CopyThrottle.UNLIMITED ? "no" : config.copyMaxBytesPerSecond());
        return manager;
    }

    /** Restores each tiered log's start offset and highest uploaded offset from the metadata, synchronously. */
    private void takeOverTieredLogs() {
        for (PartitionLog partitionLog : logs.get()) {
            RemoteLogMetadataStore store =
                    stores.get(partitionLog.dir().getParent().toAbsolutePath().normalize());
            if (partitionLog.config().remoteStorageEnable()
                    && store != null
                    && !partitionLog.topicId().equals(Uuid.ZERO_UUID)) {
                PartitionTask.takeOver(
                        partitionLog,
                        store,
                        new TopicIdPartition(partitionLog.topicId(), partitionLog.topicPartition()));
            }
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        AtomicInteger ids = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + "-" + ids.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private void tickGuarded() {
        try {
            tick(task -> {
                try {
                    copiers.execute(task);
                } catch (RejectedExecutionException e) {
                    log.debug("Not running a remote log task: shutting down");
                }
            });
        } catch (RuntimeException e) {
            log.error("Remote log manager tick failed", e);
        }
    }

    /** One pass on the calling thread: start-up cleanup if pending, then every due partition task (tests). */
    public void runOnce() {
        tick(Runnable::run);
    }

    private void tick(java.util.function.Consumer<Runnable> executor) {
        if (closing) {
            return;
        }
        if (!startupCleanupDone) {
            // In a cluster the local store may hold another leader's copy in flight (synced from the journal): only a
            // leader cleans up, after its sync, partition by partition.
            startupCleanupDone = cluster != null || cleanUpAfterCrash();
        }
        Map<TopicIdPartition, PartitionLog> live = new HashMap<>();
        for (PartitionLog partitionLog : logs.get()) {
            if (!partitionLog.topicId().equals(Uuid.ZERO_UUID)) {
                live.put(new TopicIdPartition(partitionLog.topicId(), partitionLog.topicPartition()), partitionLog);
            }
        }
        Set<TopicIdPartition> known = new HashSet<>();
        stores.values().forEach(store -> known.addAll(store.read(RemoteLogMetadataCache::partitions)));
        for (Map.Entry<TopicIdPartition, PartitionLog> e : live.entrySet()) {
            if (e.getValue().config().remoteStorageEnable() || known.contains(e.getKey())) {
                tasks.computeIfAbsent(e.getKey(), tip -> new PartitionTask(tip, context));
            }
        }
        for (TopicIdPartition gone : known) {
            if (!live.containsKey(gone) && !notYetOpened.test(gone.topicPartition()) && deleted(gone)) {
                tasks.computeIfAbsent(gone, tip -> new PartitionTask(tip, context));
            }
        }
        long nowMs = clockMs.getAsLong();
        for (PartitionTask task : List.copyOf(tasks.values())) {
            TopicIdPartition tip = task.partition();
            PartitionLog partitionLog = live.get(tip);
            if (task.finished()
                    || (partitionLog == null && !known.contains(tip))
                    || (partitionLog == null && notYetOpened.test(tip.topicPartition()))
                    || (partitionLog == null && !deleted(tip))) {
                tasks.remove(tip);
                continue;
            }
            RemoteLogMetadataStore store = partitionLog != null
                    ? stores.get(partitionLog.dir().getParent().toAbsolutePath().normalize())
                    : storeHolding(tip);
            if (store != null && task.tryStart(nowMs)) {
                executor.accept(() -> task.run(partitionLog, store));
            }
        }
        reportBacklog();
    }

    /** The upload backlog's progress: from the first tick that finds rolled segments not uploaded until none is left. */
    private ProgressReporter backlog;

    private long copiedAtBacklogStart;

    private synchronized void reportBacklog() {
        long lagBytes = uploadLag().bytes();
        long copied = stats.snapshot().bytesCopied();
        if (backlog == null) {
            if (lagBytes > 0) {
                copiedAtBacklogStart = copied;
                backlog = ProgressReporter.start(
                        "Uploading the tiered backlog",
                        lagBytes,
                        "bytes",
                        clockMs,
                        ProgressReporter.DEFAULT_INTERVAL_MS,
                        log::info);
            }
            return;
        }
        long uploaded = copied - copiedAtBacklogStart;
        backlog.progressTo(uploaded, uploaded + lagBytes);
        if (lagBytes == 0) {
            backlog.finish();
            backlog = null;
        }
    }

    /**
     * Whether the partition's remote data is to go with its log: on a lone node a log is gone only with its topic; in
     * a cluster also by reassignment, so there the cluster metadata decides.
     */
    private boolean deleted(TopicIdPartition tip) {
        return cluster == null || !cluster.topicExists().test(tip.topicId());
    }

    /**
     * In a cluster: this broker now leads {@code tp} in {@code leaderEpoch}. Its next run syncs the metadata from the
     * remote tier, cleans up what an earlier leader left half done, and uploads from where that leader stopped.
     * Returns at once (called on the metadata thread).
     */
    public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {
        Integer before = leaderEpochs.put(tp, leaderEpoch);
        if (before == null || before != leaderEpoch) {
            log.info("{}: remote log uploads and deletions are this broker's from leader epoch {}", tp, leaderEpoch);
        }
    }

    /** In a cluster: this broker no longer leads {@code tp}; a run in flight stops before its next upload. */
    public void onResigning(TopicPartition tp, int leaderEpoch) {
        if (leaderEpochs.remove(tp, leaderEpoch)) {
            log.info("{}: resigned leader epoch {}: remote log uploads stop on this broker", tp, leaderEpoch);
        }
    }

    /**
     * KIP-405's follower path: the leader answered OFFSET_MOVED_TO_TIERED_STORAGE because its local log starts at
     * {@code leaderLocalLogStartOffset}, above this replica's fetch offset. Brings this broker's metadata of the
     * partition up to the journal's, then reads the state the follower starts from out of the remote segment holding
     * the offset right below the leader's local start. Empty when no copied segment holds it yet (ask again later).
     * Blocking I/O: call it on the fetcher's thread, not the metadata thread.
     */
    public Optional<FollowerStart> followerStart(
            PartitionLog partitionLog, TopicIdPartition partition, long leaderLocalLogStartOffset)
            throws RemoteStorageException, IOException {
        RemoteLogMetadataStore store =
                stores.get(partitionLog.dir().getParent().toAbsolutePath().normalize());
        if (store == null || leaderLocalLogStartOffset <= 0) {
            return Optional.empty();
        }
        if (context.clustered()) {
            context.journal().sync(store, partition);
        }
        Optional<RemoteSegmentMetadata> below =
                store.read(c -> c.segmentForOffset(partition, leaderLocalLogStartOffset - 1));
        if (below.isEmpty() || below.get().endOffset() + 1 < leaderLocalLogStartOffset) {
            return Optional.empty();
        }
        long startOffset = below.get().endOffset() + 1;
        long remoteStart =
                PartitionTask.contiguousRemoteStart(store.read(c -> c.copiedSegments(partition)), startOffset);
        return Optional.of(FollowerStart.read(storage, below.get(), remoteStart));
    }

    private RemoteLogMetadataStore storeHolding(TopicIdPartition tip) {
        for (RemoteLogMetadataStore store : stores.values()) {
            if (store.read(c -> c.partitions().contains(tip))) {
                return store;
            }
        }
        return null;
    }

    /** Deletes the objects of every segment a crash left half copied or half deleted; true when all went. */
    private boolean cleanUpAfterCrash() {
        boolean allDone = true;
        for (RemoteLogMetadataStore store : stores.values()) {
            List<RemoteSegmentMetadata> unfinished = store.read(RemoteLogMetadataCache::segmentsToCleanUp);
            for (RemoteSegmentMetadata segment : unfinished) {
                try {
                    context.lifecycle().delete(store, segment);
                    log.info(
                            "Cleaned up remote segment {} [{}, {}] left {} by an earlier run",
                            segment.segmentId(),
                            segment.startOffset(),
                            segment.endOffset(),
                            segment.state());
                } catch (RemoteStorageException | IOException | RuntimeException e) {
                    allDone = false;
                    log.warn(
                            "Could not clean up remote segment {} yet ({}); will retry",
                            segment.segmentId(),
                            e.toString());
                }
            }
            if (!unfinished.isEmpty()) {
                try {
                    store.compact();
                } catch (IOException e) {
                    log.warn("Could not compact the remote log metadata store", e);
                }
            }
        }
        return allDone;
    }

    /** The backend holding the remote segments. */
    public RemoteStorage remoteStorage() {
        return storage;
    }

    /** The readable (COPY_SEGMENT_FINISHED) remote segments of the partition, by start offset. */
    public List<RemoteSegmentMetadata> copiedSegments(TopicIdPartition partition) {
        List<RemoteSegmentMetadata> result = new ArrayList<>();
        for (RemoteLogMetadataStore store : stores.values()) {
            result.addAll(store.read(c -> c.copiedSegments(partition)));
        }
        return result;
    }

    /** The readable remote segment holding {@code offset}, if any. */
    public Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, long offset) {
        return firstOf(c -> c.segmentForOffset(partition, offset));
    }

    /** The readable remote segment holding {@code offset} among the records of {@code leaderEpoch}, if any. */
    public Optional<RemoteSegmentMetadata> segmentForOffset(TopicIdPartition partition, int leaderEpoch, long offset) {
        return firstOf(c -> c.segmentForOffset(partition, leaderEpoch, offset));
    }

    private Optional<RemoteSegmentMetadata> firstOf(
            Function<RemoteLogMetadataCache, Optional<RemoteSegmentMetadata>> query) {
        for (RemoteLogMetadataStore store : stores.values()) {
            Optional<RemoteSegmentMetadata> found = store.read(query);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    /** Bytes and count of rolled segments of {@code tp} not uploaded yet, as of its last run. */
    public UploadLag uploadLag(TopicPartition tp) {
        UploadLag total = UploadLag.NONE;
        for (PartitionTask task : tasks.values()) {
            if (task.partition().topicPartition().equals(tp)) {
                total = total.plus(task.lag());
            }
        }
        return total;
    }

    /** Upload lag summed over every tiered partition. */
    public UploadLag uploadLag() {
        UploadLag total = UploadLag.NONE;
        for (PartitionTask task : tasks.values()) {
            total = total.plus(task.lag());
        }
        return total;
    }

    public Stats stats() {
        return stats.snapshot();
    }

    public RemoteLogManagerConfig config() {
        return config;
    }

    /** Stops the tick, waits (bounded) for runs in flight, closes the stores and the backend. */
    @Override
    public void close() {
        if (closing) {
            return;
        }
        closing = true;
        faults.release();
        if (scheduler != null) {
            scheduler.shutdownNow();
            copiers.shutdown();
            try {
                if (!copiers.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                    log.warn("Remote log uploads still running after {} ms; interrupting them", CLOSE_WAIT_MS);
                    copiers.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (RemoteLogMetadataStore store : stores.values()) {
            try {
                store.close();
            } catch (IOException e) {
                log.warn("Could not close a remote log metadata store", e);
            }
        }
        storage.close();
        try {
            Files.deleteIfExists(emptySnapshot);
        } catch (IOException e) {
            log.debug("Could not delete {}", emptySnapshot, e);
        }
        log.info("Remote log manager closed");
    }
}
