package io.varve.broker.group;

import io.varve.broker.controller.ControllerCalls;
import io.varve.broker.metadata.MetadataCache;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.LeadershipListener;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.group.GroupCoordinatorShard;
import io.varve.coordinator.group.TopicsSnapshot;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.CoordinatorLoader;
import io.varve.coordinator.runtime.CoordinatorRuntime;
import io.varve.storage.PartitionLog;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator in the broker: a {@link CoordinatorRuntime} of {@link GroupCoordinatorShard}s, one per
 * {@code __consumer_offsets} partition this broker leads, on {@code group.coordinator.threads} threads. The replica
 * manager's leadership events load a shard (replaying the partition's log) and unload it; records are appended
 * through {@link CoordinatorTopic#write} and answers leave once they are committed. The internal topic is created
 * through the controller on the first FindCoordinator, as Kafka does.
 */
public final class GroupCoordinatorRuntime implements AutoCloseable {
    public static final String TOPIC = "__consumer_offsets";
    private static final Logger log = LoggerFactory.getLogger(GroupCoordinatorRuntime.class);
    /** Events waiting or running at once (a JoinGroup waiting for its rebalance counts). */
    static final int MAX_PENDING_EVENTS = 100_000;

    private record CachedTopics(MetadataSnapshot source, TopicsSnapshot topics) {}

    private final GroupCoordinatorSettings settings;
    private volatile io.varve.coordinator.group.GroupConfigLookup groupConfigs =
            io.varve.coordinator.group.GroupConfigLookup.NONE;
    private final MetadataCache cache;
    private final ReplicaManager replicaManager;
    private final CoordinatorTopic topic;
    private final CoordinatorThreads threads;
    private final CoordinatorRuntime<GroupCoordinatorShard> runtime;
    private volatile CachedTopics topicsCache;

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
                "offsets.topic.replication.factor",
                0,
                Map.of(
                        "cleanup.policy", "compact",
                        "compression.type", "producer",
                        "segment.bytes", Integer.toString(settings.offsetsTopicSegmentBytes())),
                cache,
                replicaManager,
                controller);
        this.threads = new CoordinatorThreads("varve-group-coordinator", settings.threads());
        this.runtime = new CoordinatorRuntime<>(
                TOPIC, threads, this::load, topic::write, System::currentTimeMillis, shard -> {}, MAX_PENDING_EVENTS);
    }

    /** Follows this broker's leadership of {@code __consumer_offsets} partitions (told at once of those led now). */
    /** Who is told of every group DeleteGroups deleted (the share-partition states of a share group go with it). */
    private final java.util.List<java.util.function.Consumer<String>> deletionListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    public void onGroupDeleted(java.util.function.Consumer<String> listener) {
        deletionListeners.add(listener);
    }

    void groupDeleted(String groupId) {
        deletionListeners.forEach(l -> l.accept(groupId));
    }

    public void startup() {
        replicaManager.addLeadershipListener(new LeadershipListener() {
            @Override
            public void onBecomingLeader(TopicPartition tp, int leaderEpoch) {
                if (tp.topic().equals(TOPIC)) {
                    runtime.load(tp.partition(), leaderEpoch);
                }
            }

            @Override
            public void onResigning(TopicPartition tp, int leaderEpoch) {
                if (tp.topic().equals(TOPIC)) {
                    runtime.unload(tp.partition(), leaderEpoch);
                }
            }
        });
    }

    /** Each group's own settings (group configs), which shards loaded from now on read; set before startup. */
    public void useGroupConfigs(io.varve.coordinator.group.GroupConfigLookup lookup) {
        this.groupConfigs = java.util.Objects.requireNonNull(lookup, "lookup");
    }

    public io.varve.coordinator.group.GroupConfigLookup groupConfigs() {
        return groupConfigs;
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

    /**
     * Runs an event on the shard of {@code partition}: NOT_COORDINATOR when this broker does not lead it,
     * COORDINATOR_LOAD_IN_PROGRESS while it loads (also in the moment between the metadata naming this broker the
     * leader and the leadership event that starts the load).
     */
    public <T> CompletableFuture<T> run(int partition, Function<GroupCoordinatorShard, CompletableFuture<T>> event) {
        if (runtime.epoch(partition) < 0 && topic.leads(partition)) {
            return CompletableFuture.failedFuture(
                    new CoordinatorLoadInProgressException(TOPIC + "-" + partition + " is about to load."));
        }
        return runtime.run(partition, event);
    }

    /** Runs an event on every shard this broker has and collects the results. */
    public <T> CompletableFuture<List<T>> runOnAll(Function<GroupCoordinatorShard, CompletableFuture<T>> event) {
        return runtime.runOnAll(event);
    }

    // ---------------------------------------------------------------- loading

    /** Replays {@code __consumer_offsets-partition} into a new shard; on the shard's thread. */
    private CoordinatorLoader.Loaded<GroupCoordinatorShard> load(int partition, int leaderEpoch) {
        PartitionLog partitionLog = topic.leaderLog(partition);
        long endOffset = partitionLog.logEndOffset();
        GroupCoordinatorShard shard = new GroupCoordinatorShard(
                partition,
                settings.coordinator(),
                settings.share(),
                settings.streams(),
                System::currentTimeMillis,
                () -> Uuid.randomUuid().toString(),
                groupConfigs);
        long records = OffsetsPartitionIo.replay(partitionLog, endOffset, new OffsetsPartitionIo.ReplaySink() {
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
        log.debug("Replayed {} records of {}-{}", records, TOPIC, partition);
        return new CoordinatorLoader.Loaded<>(
                shard, CoordinatorTopic.committedUpTo(partitionLog, endOffset, threads, partition));
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
        return topic.ensureExists();
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
    public static Errors errorOf(Throwable e) {
        Throwable cause = unwrap(e);
        if (!(cause instanceof ApiException)) {
            log.error("Group coordinator request failed", cause);
        }
        return Errors.forException(cause);
    }

    @Override
    public void close() {
        runtime.close();
        threads.close();
    }
}
