package io.varve.broker.replica;

import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.replica.selector.ReplicaSelector;
import io.varve.broker.replica.state.PartitionState;
import io.varve.broker.replica.throttle.ReplicationThrottles;
import io.varve.broker.tiered.TieredReads;
import io.varve.metadata.controller.replication.AlterPartitionReply;
import io.varve.metadata.controller.replication.AlterPartitionRequest;
import io.varve.storage.AppendOrigin;
import io.varve.storage.AppendResult;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this broker holds: keeps local logs in step with the metadata image (creating logs for partitions
 * it hosts, deleting logs of removed topics), turns each image into "this broker now leads / follows / no longer
 * hosts" per partition on its {@link Partition} objects, and routes appends and reads through them. Followers are
 * handed to the {@link FollowerFetching} (the replica fetchers); ISR changes go to the controller; appends that wait
 * for the high watermark wait in the {@link ProducePurgatory}.
 *
 * <p>A partition of one replica led here whose log start-up deferred gets its {@link Partition} on first use, so a
 * clean start does not open every log at once.
 */
public final class ReplicaManager implements Partition.Events {
    private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

    /** How long a coordinator's write may wait for its commit before it fails (Kafka's default request timeout). */
    private static final long COORDINATOR_COMMIT_TIMEOUT_MS = 30_000;

    /** Where followers are fetched for: the replica fetchers, or nothing on a node that has none yet. */
    public interface FollowerFetching {
        void follow(Partition partition, int leaderId, int leaderEpoch);

        void stopFollowing(TopicPartition tp);
    }

    private final int nodeId;
    private final LogManager logManager;
    private final FetchPurgatory fetchPurgatory;
    private final LocalLogs localLogs;
    /** The newest snapshot reconciled, for retries and coordinator appends. */
    private volatile MetadataSnapshot reconciled;

    private final LeadershipAnnouncer leadership = new LeadershipAnnouncer();

    /** The partitions hosted here with a {@link Partition}; the others of {@link #hosted} get one on first use. */
    private final ConcurrentHashMap<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    /** Every partition the newest image has on this broker, with its topic id and state there. */
    private volatile Map<TopicPartition, Hosted> hosted = Map.of();

    private record Hosted(Uuid topicId, PartitionInfo info, int minInsyncReplicas) {}

    private final ScheduledExecutorService timer = newTimer();
    private final ProducePurgatory producePurgatory = new ProducePurgatory(timer, 100_000);
    private final DeleteRecordsPurgatory deleteRecordsPurgatory = new DeleteRecordsPurgatory(timer, 10_000);
    private final IsrChangeSender isrChanges;
    private final LongSupplier clockMs;
    private volatile FollowerFetching followers = new FollowerFetching() {
        @Override
        public void follow(Partition partition, int leaderId, int leaderEpoch) {}

        @Override
        public void stopFollowing(TopicPartition tp) {}
    };
    private volatile boolean replicating;
    private final BiFunction<MetadataSnapshot, Map<String, String>, Integer> minInsyncReplicas;

    /** The replication throttles of this broker, from each image's configs. */
    private final ReplicationThrottles throttles;

    /** {@code replica.selector.class} (KIP-392); null: consumers read from the leader only. */
    private volatile ReplicaSelector replicaSelector;

    /** Where reads of offsets held only by remote storage go; set once at start-up when tiering is on. */
    private volatile TieredReads tieredReads = TieredReads.disabled();

    /** {@code logConfigs} gives a topic's effective log config from the snapshot's broker configs and its overrides. */
    public ReplicaManager(
            int nodeId,
            LogManager logManager,
            FetchPurgatory fetchPurgatory,
            BiFunction<MetadataSnapshot, Map<String, String>, LogConfig> logConfigs) {
        this(nodeId, logManager, fetchPurgatory, logConfigs, (snapshot, overrides) -> 1, System::currentTimeMillis);
    }

    /** {@code minInsyncReplicas} gives a topic's effective {@code min.insync.replicas} the same way. */
    public ReplicaManager(
            int nodeId,
            LogManager logManager,
            FetchPurgatory fetchPurgatory,
            BiFunction<MetadataSnapshot, Map<String, String>, LogConfig> logConfigs,
            BiFunction<MetadataSnapshot, Map<String, String>, Integer> minInsyncReplicas,
            LongSupplier clockMs) {
        this.nodeId = nodeId;
        this.logManager = logManager;
        this.fetchPurgatory = fetchPurgatory;
        this.localLogs = new LocalLogs(logManager, logConfigs);
        this.minInsyncReplicas = minInsyncReplicas;
        this.clockMs = clockMs;
        this.isrChanges = new IsrChangeSender(nodeId, timer, 100);
        this.throttles = new ReplicationThrottles(nodeId, clockMs);
        logManager.onReplicaSwap(this::swapMovedLog);
    }

    /**
     * A replica moved to another log dir takes over (AlterReplicaLogDirs): under this manager's monitor (no partition
     * is materialised meanwhile) and the partition's (its appends wait), so every later write goes to the new log.
     */
    private PartitionLog swapMovedLog(TopicPartition tp, java.util.function.Supplier<PartitionLog> swap) {
        synchronized (this) {
            Partition p = partitions.get(tp);
            if (p == null) {
                return swap.get();
            }
            synchronized (p) {
                PartitionLog serving = swap.get();
                if (serving != p.log()) {
                    p.replaceLog(serving);
                }
                return serving;
            }
        }
    }

    /** The replication throttles (leader and follower quotas with the throttled replicas of the newest image). */
    public ReplicationThrottles throttles() {
        return throttles;
    }

    /** {@code observer} is told of each ISR change the controller made for a partition led here (true: it shrank). */
    public void onIsrChange(java.util.function.Consumer<Boolean> observer) {
        isrChanges.onCommittedChange(observer);
    }

    /**
     * Starts replication: ISR changes go to {@code alterPartition} (the controller) quoting {@code brokerEpoch},
     * followers to {@code fetching}, and the ISR is checked for laggards every half {@code replicaLagTimeMaxMs}.
     * Partitions already followed are handed to the fetchers now.
     */
    public void startReplication(
            Function<AlterPartitionRequest, CompletableFuture<AlterPartitionReply>> alterPartition,
            LongSupplier brokerEpoch,
            FollowerFetching fetching,
            long replicaLagTimeMaxMs) {
        isrChanges.connect(alterPartition, brokerEpoch);
        this.followers = fetching;
        synchronized (this) {
            replicating = true;
            for (Partition p : partitions.values()) {
                if (!p.isLeader() && p.leaderId() >= 0) {
                    fetching.follow(p, p.leaderId(), p.leaderEpoch());
                }
            }
        }
        long periodMs = Math.max(1, replicaLagTimeMaxMs / 2);
        timer.scheduleWithFixedDelay(
                () -> {
                    for (Partition p : partitions.values()) {
                        try {
                            if (p.isLeader()) {
                                p.maybeShrinkIsr(replicaLagTimeMaxMs);
                            }
                        } catch (RuntimeException e) {
                            log.warn("Checking the ISR of {} failed", p.topicPartition(), e);
                        }
                    }
                },
                periodMs,
                periodMs,
                TimeUnit.MILLISECONDS);
    }

    /**
     * Reconciles local logs with the image: called on the metadata thread for every new image. Never throws: a
     * partition whose log cannot be opened or created is recorded as unavailable (it answers KAFKA_STORAGE_ERROR) and
     * retried, and every other partition and every later image is still applied.
     */
    public synchronized void applyMetadata(MetadataSnapshot snapshot) {
        reconciled = snapshot;
        Map<String, Map<String, String>> topicConfigs = new HashMap<>();
        for (TopicInfo topic : snapshot.topics()) {
            topicConfigs.put(topic.name(), topic.configs());
        }
        throttles.update(snapshot.dynamicBrokerConfigs(), snapshot.dynamicDefaultBrokerConfigs(), topicConfigs);
        Map<TopicPartition, Uuid> wanted = new HashMap<>();
        for (TopicInfo topic : snapshot.topics()) {
            for (PartitionInfo p : topic.partitions().values()) {
                if (contains(p.replicas(), nodeId)) {
                    wanted.put(new TopicPartition(topic.name(), p.partition()), topic.id());
                }
            }
        }
        Map<TopicPartition, Integer> leading = leading(snapshot);
        leadership.resignAllBut(leading); // before a log goes away, its coordinators let go of it
        localLogs.reconcile(snapshot, wanted);
        Map<TopicPartition, Hosted> nowHosted = new HashMap<>();
        for (Map.Entry<TopicPartition, Uuid> e : wanted.entrySet()) {
            TopicInfo topic = snapshot.topicsByName().get(e.getKey().topic());
            nowHosted.put(
                    e.getKey(),
                    new Hosted(
                            e.getValue(),
                            topic.partitions().get(e.getKey().partition()),
                            minInsyncReplicas.apply(snapshot, topic.configs())));
        }
        hosted = Map.copyOf(nowHosted);
        applyPartitions(nowHosted);
        announceLeadership(leading);
    }

    /** Moves each {@link Partition} to its role in the image; drops the ones no longer hosted. */
    private void applyPartitions(Map<TopicPartition, Hosted> nowHosted) {
        for (Partition p : List.copyOf(partitions.values())) {
            TopicPartition tp = p.topicPartition();
            Hosted h = nowHosted.get(tp);
            Optional<PartitionLog> current = logManager.openLogIfPresent(tp);
            if (h == null || current.isEmpty() || current.get() != p.log()) {
                partitions.remove(tp, p);
                followers.stopFollowing(tp);
                producePurgatory.leadershipLost(tp);
                deleteRecordsPurgatory.check(tp);
                fetchPurgatory.onAppend(tp, Integer.MAX_VALUE);
            }
        }
        for (Map.Entry<TopicPartition, Hosted> e : nowHosted.entrySet()) {
            TopicPartition tp = e.getKey();
            Hosted h = e.getValue();
            Partition existing = partitions.get(tp);
            boolean lazy = h.info().leader() == nodeId && h.info().replicas().length == 1;
            if (existing == null && lazy) {
                // materialised on first use: a sole replica has no follower to wait for, and a new topic of a
                // thousand partitions would otherwise write a thousand leader-epoch files before any of them serves
                continue;
            }
            if (existing == null && logManager.getLog(tp).isEmpty()) {
                continue; // unavailable: retried
            }
            try {
                apply(existing != null ? existing : materialise(tp, h), h);
            } catch (RuntimeException failure) {
                // one partition's failure must not stop the image reaching the others
                log.error(
                        "Could not apply the metadata of {} (leader {}, epoch {})",
                        tp,
                        h.info().leader(),
                        h.info().leaderEpoch(),
                        failure);
            }
        }
    }

    private Partition materialise(TopicPartition tp, Hosted h) {
        PartitionLog partitionLog = logManager.getLog(tp).orElseThrow();
        return partitions.computeIfAbsent(tp, k -> new Partition(tp, h.topicId(), nodeId, partitionLog, this, clockMs));
    }

    private void apply(Partition p, Hosted h) {
        p.setMinInsyncReplicas(h.minInsyncReplicas());
        if (p.hasRole()
                && p.leaderId() == h.info().leader()
                && p.leaderEpoch() == h.info().leaderEpoch()
                && p.partitionEpoch() >= h.info().partitionEpoch()) {
            return; // nothing new for this partition in the image (most partitions of most images)
        }
        boolean changed = p.applyImage(h.topicId(), h.info());
        TopicPartition tp = p.topicPartition();
        if (changed) {
            if (p.isLeader()) {
                followers.stopFollowing(tp);
            } else {
                producePurgatory.leadershipLost(tp);
                deleteRecordsPurgatory.check(tp);
                fetchPurgatory.onAppend(tp, Integer.MAX_VALUE); // waiting consumer fetches learn of the new leader
                if (h.info().leader() < 0) {
                    followers.stopFollowing(tp); // offline: nobody to fetch from until a leader is elected
                } else if (replicating) {
                    followers.follow(p, h.info().leader(), h.info().leaderEpoch());
                }
            }
        }
        producePurgatory.check(tp);
    }

    /**
     * The {@link Partition} of {@code tp} when this broker hosts it (materialising a lazily opened one), else empty.
     */
    public Optional<Partition> partition(TopicPartition tp) {
        Partition p = partitions.get(tp);
        if (p != null) {
            return Optional.of(p);
        }
        Hosted h = hosted.get(tp);
        if (h == null || logManager.getLog(tp).isEmpty()) {
            return Optional.empty();
        }
        synchronized (this) {
            Hosted again = hosted.get(tp);
            if (again == null) {
                return Optional.empty();
            }
            Partition created = materialise(tp, again);
            if (!created.hasRole()) {
                apply(created, again);
            }
            return Optional.of(created);
        }
    }

    /**
     * Whether this broker leads the partition of {@code partitionLog} (with that very log): background work only a
     * leader does (tiered uploads and remote retention) skips the others.
     */
    public boolean leads(PartitionLog partitionLog) {
        TopicPartition tp = partitionLog.topicPartition();
        Partition p = partitions.get(tp);
        if (p != null) {
            return p.log() == partitionLog && p.isLeader();
        }
        Hosted h = hosted.get(tp);
        return h != null && h.info().leader() == nodeId;
    }

    /** The partition of {@code tp} when this broker leads it; Kafka's errors otherwise. */
    public Partition leaderPartition(MetadataSnapshot snapshot, TopicPartition tp) {
        TopicInfo topic = snapshot.topicsByName().get(tp.topic());
        PartitionInfo info = topic == null ? null : topic.partitions().get(tp.partition());
        if (info == null) {
            throw new UnknownTopicOrPartitionException("This server does not host this topic-partition.");
        }
        Optional<Partition> p = partition(tp);
        if (p.isEmpty()) {
            KafkaStorageException failure = localLogs.failure(tp);
            if (failure != null) {
                throw new KafkaStorageException(
                        "The log of " + tp + " could not be opened (" + failure.getMessage() + "); it is retried");
            }
            throw new NotLeaderOrFollowerException("This broker is not the leader of " + tp + ".");
        }
        if (!p.get().isLeader()) {
            throw new NotLeaderOrFollowerException("This broker is not the leader of " + tp + ".");
        }
        return p.get();
    }

    /**
     * The partition of {@code tp} for a consumer's fetch: the leader's, or from Fetch v11 on (KIP-392) a follower's,
     * which serves up to its own high watermark. Kafka's errors otherwise.
     */
    public Partition readablePartition(MetadataSnapshot snapshot, TopicPartition tp, boolean followerAllowed) {
        if (followerAllowed) {
            Optional<Partition> p = partition(tp);
            if (p.isPresent() && p.get().isFollower()) {
                return p.get();
            }
        }
        return leaderPartition(snapshot, tp);
    }

    /** Sets the selector of {@code replica.selector.class}; empty keeps every consumer on the leader. */
    public void useReplicaSelector(Optional<ReplicaSelector> selector) {
        this.replicaSelector = selector.orElse(null);
    }

    /**
     * KIP-392: the replica a consumer in {@code clientRack} should read {@code partition} (led here) from at {@code
     * fetchOffset}, or -1 to read here. Only in-sync followers that hold the offset and are registered are candidates.
     */
    public int preferredReadReplica(
            MetadataSnapshot snapshot, Partition partition, String clientRack, long fetchOffset) {
        ReplicaSelector selector = replicaSelector;
        if (selector == null || clientRack == null || clientRack.isEmpty()) {
            return -1;
        }
        Map<Integer, String> racks = new HashMap<>();
        for (MetadataSnapshot.BrokerInfo b : snapshot.brokers()) {
            racks.put(b.nodeId(), b.rack());
        }
        List<ReplicaSelector.Candidate> followers = new java.util.ArrayList<>();
        partition.inSyncFollowersHolding(fetchOffset).forEach((id, logEnd) -> {
            if (racks.containsKey(id)) {
                followers.add(new ReplicaSelector.Candidate(id, racks.get(id), logEnd));
            }
        });
        if (followers.isEmpty()) {
            return -1;
        }
        ReplicaSelector.Candidate leader = new ReplicaSelector.Candidate(
                nodeId, racks.get(nodeId), partition.log().logEndOffset());
        int chosen = selector.select(clientRack, leader, followers);
        return chosen == nodeId ? -1 : chosen;
    }

    @Override
    public void highWatermarkMoved(Partition partition) {
        TopicPartition tp = partition.topicPartition();
        producePurgatory.check(tp);
        fetchPurgatory.onHighWatermark(tp); // consumers waiting for committed data read again
    }

    @Override
    public void followerLogStartMoved(Partition partition) {
        deleteRecordsPurgatory.check(partition.topicPartition());
    }

    /**
     * DeleteRecords on partitions led here, after their leader logs moved their log start to {@code targets}:
     * completes once every live replica's log start reached its target (the low watermark), or at {@code timeoutMs}.
     */
    public CompletableFuture<Map<TopicPartition, DeleteRecordsPurgatory.Outcome>> awaitLowWatermarks(
            Map<TopicPartition, Long> targets, long timeoutMs) {
        return deleteRecordsPurgatory.await(
                targets,
                tp -> {
                    MetadataSnapshot snapshot = reconciled;
                    if (snapshot == null) {
                        throw new NotLeaderOrFollowerException("This broker has not caught up with the metadata.");
                    }
                    java.util.Set<Integer> live = new java.util.HashSet<>();
                    snapshot.brokers().forEach(b -> live.add(b.nodeId()));
                    return leaderPartition(snapshot, tp).lowWatermark(live);
                },
                timeoutMs);
    }

    @Override
    public void isrChangeProposed(Partition partition, PartitionState.IsrChange change) {
        isrChanges.send(partition, change);
    }

    public ProducePurgatory producePurgatory() {
        return producePurgatory;
    }

    private Map<TopicPartition, Integer> leading(MetadataSnapshot snapshot) {
        Map<TopicPartition, Integer> leading = new HashMap<>();
        for (TopicInfo topic : snapshot.topics()) {
            for (PartitionInfo p : topic.partitions().values()) {
                if (p.leader() == nodeId) {
                    leading.put(new TopicPartition(topic.name(), p.partition()), p.leaderEpoch());
                }
            }
        }
        return leading;
    }

    /** Tells listeners of the led partitions whose log is open (the others once a retry opens it). */
    private void announceLeadership(Map<TopicPartition, Integer> leading) {
        Map<TopicPartition, Integer> open = new HashMap<>();
        leading.forEach((tp, epoch) -> {
            if (logManager.getLog(tp).isPresent()) {
                open.put(tp, epoch);
            }
        });
        leadership.announce(open);
    }

    /**
     * Adds a listener told on the metadata thread when this broker starts or stops leading a partition; it is told
     * at once of the partitions led now.
     */
    public void addLeadershipListener(LeadershipListener listener) {
        leadership.add(listener);
    }

    /** Tries again to open or create the logs that failed; called periodically. */
    public synchronized void retryUnavailableLogs() {
        MetadataSnapshot snapshot = reconciled;
        if (snapshot != null && localLogs.retry(snapshot)) {
            applyPartitions(hosted);
            announceLeadership(leading(snapshot));
        }
    }

    /** How many partitions this broker should hold have no usable log now. */
    public int unavailableLogCount() {
        return localLogs.unavailableCount();
    }

    private static boolean contains(int[] ids, int id) {
        for (int i : ids) {
            if (i == id) {
                return true;
            }
        }
        return false;
    }

    /** The local log of a partition this broker leads; Kafka's errors otherwise. */
    public PartitionLog leaderLog(MetadataSnapshot snapshot, TopicPartition tp) {
        return leaderPartition(snapshot, tp).log();
    }

    /** Appends as leader; waiting fetches are woken, the high watermark moves once the ISR has the records. */
    public AppendResult appendAsLeader(PartitionLog partitionLog, ByteBuffer records, int leaderEpoch) {
        return appendAsLeader(partitionLog, records, leaderEpoch, AppendOrigin.CLIENT);
    }

    /**
     * {@link #appendAsLeader(PartitionLog, ByteBuffer, int)} for {@code origin}: a coordinator may append transaction
     * markers (control batches). Waiting fetches are woken, so followers fetch the records and read_committed
     * consumers see the last stable offset move.
     */
    public AppendResult appendAsLeader(
            PartitionLog partitionLog, ByteBuffer records, int leaderEpoch, AppendOrigin origin) {
        Partition p = partition(partitionLog.topicPartition())
                .filter(found -> found.log() == partitionLog)
                .orElseThrow(() -> new NotLeaderOrFollowerException(
                        "This broker is not the leader of " + partitionLog.topicPartition() + "."));
        return append(p, records, origin, (short) 1).result();
    }

    /** Appends to a partition this broker leads and wakes the fetches waiting for it. */
    public Partition.LeaderAppend append(Partition p, ByteBuffer records, AppendOrigin origin, short requiredAcks) {
        return append(p, records, origin, requiredAcks, null);
    }

    /** {@link #append(Partition, ByteBuffer, AppendOrigin, short)} with a transaction verification guard (KIP-890). */
    public Partition.LeaderAppend append(
            Partition p,
            ByteBuffer records,
            AppendOrigin origin,
            short requiredAcks,
            io.varve.storage.producer.VerificationGuard guard) {
        int bytes = records.remaining();
        Partition.LeaderAppend append = p.appendAsLeader(records, origin, requiredAcks, guard);
        if (!append.result().duplicate()) {
            fetchPurgatory.onAppend(p.topicPartition(), bytes);
        }
        return append;
    }

    /**
     * Appends a coordinator's records (control batches allowed) as leader at {@code leaderEpoch}; the future completes
     * with the last offset appended once the high watermark has passed it, that is once the write is committed, and
     * fails with {@link NotLeaderOrFollowerException} when this broker does not lead the partition at that epoch or
     * loses the leadership before the write is committed, and with NOT_ENOUGH_REPLICAS(_AFTER_APPEND) when the ISR is
     * below the topic's {@code min.insync.replicas} (acks=all). Never blocks on replication.
     */
    public CompletableFuture<Long> appendAsCoordinator(TopicPartition tp, ByteBuffer records, int leaderEpoch) {
        try {
            MetadataSnapshot snapshot = reconciled;
            if (snapshot == null) {
                throw new NotLeaderOrFollowerException("This broker has not caught up with the metadata yet.");
            }
            Partition p = leaderPartition(snapshot, tp);
            int current = p.leaderEpochIfLeader();
            if (current != leaderEpoch) {
                throw new NotLeaderOrFollowerException(
                        "The leader epoch of " + tp + " is " + current + ", not " + leaderEpoch + ".");
            }
            // acks=all, as Kafka writes coordinator records: refused below min.insync.replicas, before and after
            Partition.LeaderAppend append = append(p, records, AppendOrigin.COORDINATOR, (short) -1);
            long last = append.result().lastOffset();
            return producePurgatory
                    .await(p, last + 1, append.leaderEpoch(), true, COORDINATOR_COMMIT_TIMEOUT_MS)
                    .thenApply(v -> last);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The local log of a partition whatever its role, for offsets reported beside an error. */
    public Optional<PartitionLog> localLog(TopicPartition tp) {
        return logManager.getLog(tp);
    }

    public FetchPurgatory fetchPurgatory() {
        return fetchPurgatory;
    }

    /** Reads of tiered offsets (disabled unless remote storage is on). */
    public TieredReads tieredReads() {
        return tieredReads;
    }

    /**
     * One thread for ISR checks and the timeouts of waiting writes. A cancelled timeout leaves the queue at once: a
     * write committed before its request timeout would otherwise keep its task (and what it refers to) queued until
     * the timeout was due.
     */
    private static ScheduledExecutorService newTimer() {
        java.util.concurrent.ScheduledThreadPoolExecutor timer =
                new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
                    Thread t = new Thread(r, "varve-replica-timer");
                    t.setDaemon(true);
                    return t;
                });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }

    /** Stops the replica timer (ISR checks, timeouts of waiting writes). */
    public void close() {
        timer.shutdownNow();
    }

    /** Enables remote reads; called once at start-up, before requests are served. */
    public void enableTieredReads(TieredReads reads) {
        this.tieredReads = java.util.Objects.requireNonNull(reads, "reads");
    }
}
