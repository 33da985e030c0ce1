package io.varve.broker.group;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.GroupCoordinatorShard;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.storage.PartitionLog;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one {@link GroupCoordinatorShard} per {@code __consumer_offsets} partition this broker leads. A shard lives
 * on one coordinator thread (partition modulo the thread count) and is only touched there: events, its load
 * (replaying the partition's log) and its timers. After every event the runtime appends the shard's records to
 * the partition log, then releases the responses. The internal topic is created through the controller on the
 * first FindCoordinator, as Kafka does.
 */
public final class GroupCoordinatorRuntime implements AutoCloseable {
    public static final String TOPIC = "__consumer_offsets";
    private static final Logger log = LoggerFactory.getLogger(GroupCoordinatorRuntime.class);

    private enum State {
        LOADING,
        ACTIVE,
        FAILED
    }

    /** A shard and its scheduling; fields other than {@code state} are confined to the shard's thread. */
    private static final class Holder {
        final int partition;
        final ScheduledThreadPoolExecutor thread;
        volatile State state = State.LOADING;
        GroupCoordinatorShard shard;
        ScheduledFuture<?> tick;
        long tickAtMs = Long.MAX_VALUE;

        Holder(int partition, ScheduledThreadPoolExecutor thread) {
            this.partition = partition;
            this.thread = thread;
        }
    }

    private record CachedTopics(MetadataSnapshot source, TopicsSnapshot topics) {}

    private final GroupCoordinatorSettings settings;
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final CoordinatorTopic topic;
    private final ScheduledThreadPoolExecutor[] threads;
    private final Map<Integer, Holder> shards = new ConcurrentHashMap<>();
    private volatile CachedTopics topicsCache;
    private volatile boolean closed;

    public GroupCoordinatorRuntime(
            int nodeId,
            GroupCoordinatorSettings settings,
            MetadataCache cache,
            ReplicaManager replicaManager,
            ControllerCalls controller) {
        this.settings = settings;
        this.cache = cache;
        this.replicaManager = replicaManager;
        this.topic = new CoordinatorTopic(
                TOPIC,
                nodeId,
                settings.offsetsTopicPartitions(),
                settings.offsetsTopicReplicationFactor(),
                Map.of(
                        "cleanup.policy", "compact",
                        "compression.type", "producer",
                        "segment.bytes", Integer.toString(settings.offsetsTopicSegmentBytes())),
                cache,
                replicaManager,
                controller);
        this.threads = new ScheduledThreadPoolExecutor[settings.threads()];
        for (int i = 0; i < threads.length; i++) {
            int id = i;
            ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
                Thread thread = new Thread(r, "varve-group-coordinator-" + id);
                thread.setDaemon(true);
                return thread;
            });
            t.setRemoveOnCancelPolicy(true);
            t.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            threads[i] = t;
        }
    }

    /** Loads every existing {@code __consumer_offsets} partition this broker leads (in the background). */
    public void startup() {
        loadLedPartitions();
    }

    public GroupCoordinatorSettings settings() {
        return settings;
    }

    // ---------------------------------------------------------------- routing

    /** Kafka's mapping: the partition of {@code __consumer_offsets} that coordinates a group. */
    public int partitionFor(String groupId) {
        return topic.partitionFor(groupId);
    }

    public int numPartitions() {
        return topic.numPartitions();
    }

    /** The topics as the coordinator sees them, rebuilt only when the metadata changes. */
    public TopicsSnapshot topics() {
        MetadataSnapshot s = cache.snapshot();
        CachedTopics cached = topicsCache;
        if (cached == null || cached.source != s) {
            List<TopicsSnapshot.Topic> list = new ArrayList<>();
            for (TopicInfo t : s.topics()) {
                list.add(new TopicsSnapshot.Topic(
                        t.name(), t.id(), t.partitions().size(), t.isInternal()));
            }
            cached = new CachedTopics(s, new TopicsSnapshot(s.offset(), list));
            topicsCache = cached;
        }
        return cached.topics;
    }

    /** Runs an event on the shard that coordinates {@code groupId}. */
    public <T> CompletableFuture<T> run(String groupId, Function<GroupCoordinatorShard, CompletableFuture<T>> event) {
        return run(partitionFor(groupId), event);
    }

    /** Runs an event on the shard of {@code partition}; fails with NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS... */
    public <T> CompletableFuture<T> run(int partition, Function<GroupCoordinatorShard, CompletableFuture<T>> event) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Holder h;
        try {
            h = holder(partition);
        } catch (ApiException e) {
            result.completeExceptionally(e);
            return result;
        }
        execute(h, result, () -> {
            if (h.state != State.ACTIVE) {
                result.completeExceptionally(
                        h.state == State.LOADING
                                ? new CoordinatorLoadInProgressException(
                                        "__consumer_offsets-" + partition + " is loading.")
                                : new NotCoordinatorException(
                                        "This broker no longer coordinates __consumer_offsets-" + partition + "."));
                return;
            }
            try {
                event.apply(h.shard).whenComplete((v, e) -> {
                    if (e != null) {
                        result.completeExceptionally(e);
                    } else {
                        result.complete(v);
                    }
                });
            } catch (RuntimeException e) {
                log.error("Group coordinator event on __consumer_offsets-{} failed", partition, e);
                result.completeExceptionally(e);
            }
            flush(h);
        });
        return result;
    }

    /** Runs an event on every shard this broker leads and collects the results. */
    public <T> CompletableFuture<List<T>> runOnAll(Function<GroupCoordinatorShard, CompletableFuture<T>> event) {
        List<CompletableFuture<T>> all = new ArrayList<>();
        for (int partition : topic.ledPartitions()) {
            all.add(run(partition, event));
        }
        return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
                .thenApply(v -> all.stream().map(CompletableFuture::join).toList());
    }

    private void execute(Holder h, CompletableFuture<?> result, Runnable task) {
        try {
            h.thread.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            result.completeExceptionally(new NotCoordinatorException("The group coordinator is shut down."));
        }
    }

    private Holder holder(int partition) {
        if (closed) {
            throw new NotCoordinatorException("The group coordinator is shut down.");
        }
        Holder h = shards.get(partition);
        if (h != null) {
            return h;
        }
        topic.requireLeader(partition);
        return startLoad(partition);
    }

    // ---------------------------------------------------------------- loading

    private void loadLedPartitions() {
        topic.ledPartitions().forEach(this::startLoad);
    }

    private Holder startLoad(int partition) {
        Holder[] created = new Holder[1];
        Holder h = shards.computeIfAbsent(partition, p -> created[0] = new Holder(p, threads[p % threads.length]));
        if (created[0] != null) {
            execute(h, new CompletableFuture<>(), () -> load(h));
        }
        return h;
    }

    private void load(Holder h) {
        long startNanos = System.nanoTime();
        TopicPartition tp = new TopicPartition(TOPIC, h.partition);
        try {
            PartitionLog partitionLog = topic.leaderLog(h.partition);
            GroupCoordinatorShard shard = new GroupCoordinatorShard(
                    h.partition, settings.coordinator(), System::currentTimeMillis, () -> Uuid.randomUuid()
                            .toString());
            long records = OffsetsPartitionIo.replay(
                    partitionLog, partitionLog.logEndOffset(), new OffsetsPartitionIo.ReplaySink() {
                        @Override
                        public void record(CoordinatorRecord record, long producerId) {
                            shard.replay(record, producerId);
                        }

                        @Override
                        public void marker(long producerId, boolean commit) {
                            shard.replayTransactionMarker(producerId, commit);
                        }
                    });
            shard.onLoadComplete();
            h.shard = shard;
            h.state = State.ACTIVE;
            flush(h);
            log.info(
                    "Loaded {} ({} records) in {} ms",
                    tp,
                    records,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
        } catch (RuntimeException e) {
            if (e instanceof org.apache.kafka.common.errors.RetriableException) {
                // e.g. the partition's log is still being created: nothing is wrong, the next request loads it
                log.info("Loading {} deferred ({}); it is retried on the next request", tp, e.getMessage());
            } else {
                log.error("Loading {} failed; it will be retried on the next request", tp, e);
            }
            h.state = State.FAILED;
            shards.remove(h.partition, h);
        }
    }

    // ---------------------------------------------------------------- writing and timers

    /**
     * Appends what the shard produced, then releases the responses; on a write failure the shard is dropped (it
     * reloads from the log, which is the truth: staged state the log refused is gone).
     */
    private void flush(Holder h) {
        Outbox.Output out = h.shard.drain();
        if (!out.writes().isEmpty()) {
            try {
                for (Outbox.Write w : out.writes()) {
                    if (w.isTransactional()) {
                        topic.appendTransactional(h.partition, w.producerId(), w.producerEpoch(), w.records());
                    } else {
                        topic.append(h.partition, w.records());
                    }
                }
            } catch (RuntimeException e) {
                log.error(
                        "Writing {} group coordinator records to {}-{} failed: unloading the shard, it reloads "
                                + "from the log on the next request",
                        out.records().size(),
                        TOPIC,
                        h.partition,
                        e);
                out.fail(new NotCoordinatorException("Writing to " + TOPIC + "-" + h.partition + " failed."));
                h.state = State.FAILED;
                shards.remove(h.partition, h);
                cancelTick(h);
                return;
            }
        }
        out.complete();
        reschedule(h);
    }

    private void reschedule(Holder h) {
        if (h.state != State.ACTIVE || closed) {
            return;
        }
        long next = h.shard.nextDeadlineMs();
        if (next == h.tickAtMs && h.tick != null && !h.tick.isDone()) {
            return;
        }
        cancelTick(h);
        if (next == Long.MAX_VALUE) {
            return;
        }
        long delayMs = Math.max(0, next - System.currentTimeMillis());
        h.tickAtMs = next;
        try {
            h.tick = h.thread.schedule(() -> tick(h), delayMs, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // shutting down
        }
    }

    private void cancelTick(Holder h) {
        if (h.tick != null) {
            h.tick.cancel(false);
            h.tick = null;
        }
        h.tickAtMs = Long.MAX_VALUE;
    }

    private void tick(Holder h) {
        h.tick = null;
        h.tickAtMs = Long.MAX_VALUE;
        if (h.state != State.ACTIVE) {
            return;
        }
        try {
            h.shard.tick();
        } catch (RuntimeException e) {
            log.error("Group coordinator timers of {}-{} failed", TOPIC, h.partition, e);
        }
        flush(h);
    }

    // ---------------------------------------------------------------- transactions

    /**
     * The transaction coordinator wrote the producer's COMMIT or ABORT marker to {@code __consumer_offsets-partition}:
     * the group shard there commits or drops the producer's pending transactional offsets. A shard not loaded yet
     * reads the marker from the log when it loads.
     */
    public void onTransactionCompleted(int partition, long producerId, boolean commit) {
        run(partition, shard -> shard.onTransactionCompleted(producerId, commit))
                .whenComplete((v, e) -> {
                    if (e != null && !(unwrap(e) instanceof ApiException)) {
                        log.error(
                                "Completing the transaction of producer {} in {}-{} failed",
                                producerId,
                                TOPIC,
                                partition,
                                e);
                    }
                });
    }

    private static Throwable unwrap(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    // ---------------------------------------------------------------- the internal topic

    /** Completes once {@code __consumer_offsets} exists, creating it through the controller if needed. */
    public CompletableFuture<Void> ensureTopic() {
        return topic.ensureExists(this::loadLedPartitions);
    }

    /** The node coordinating {@code groupId}: the leader of its partition, or -1 when there is none. */
    public int coordinatorNode(String groupId) {
        return topic.coordinatorNode(groupId);
    }

    // ---------------------------------------------------------------- lag

    /** Committed offset, log end offset (the high watermark a consumer can read to) and lag of one partition. */
    public record PartitionLag(TopicPartition partition, long committedOffset, long logEndOffset, long lag) {}

    /**
     * The lag of every partition the group has committed offsets for, sorted by topic and partition. A partition
     * whose log this broker does not lead has log end offset and lag -1.
     */
    public CompletableFuture<List<PartitionLag>> lag(String groupId) {
        return run(groupId, shard -> shard.committedOffsets(groupId)).thenApply(committed -> {
            MetadataSnapshot snapshot = cache.snapshot();
            List<PartitionLag> out = new ArrayList<>();
            committed.forEach((tp, offset) -> {
                long end;
                try {
                    end = replicaManager.leaderLog(snapshot, tp).highWatermark();
                } catch (ApiException e) {
                    end = -1;
                }
                out.add(new PartitionLag(tp, offset, end, end < 0 ? -1 : Math.max(0, end - offset)));
            });
            out.sort(Comparator.comparing((PartitionLag l) -> l.partition().topic())
                    .thenComparingInt(l -> l.partition().partition()));
            return out;
        });
    }

    /** The error code a runtime future failed with. */
    static Errors errorOf(Throwable e) {
        Throwable cause = unwrap(e);
        if (!(cause instanceof ApiException)) {
            log.error("Group coordinator request failed", cause);
        }
        return Errors.forException(cause);
    }

    @Override
    public void close() {
        closed = true;
        for (ScheduledThreadPoolExecutor t : threads) {
            t.shutdown();
        }
        for (ScheduledThreadPoolExecutor t : threads) {
            try {
                if (!t.awaitTermination(5, TimeUnit.SECONDS)) {
                    t.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        shards.clear();
    }
}
