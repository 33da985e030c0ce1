package io.varve.broker.replica;

import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.metadata.MetadataSnapshot.TopicInfo;
import io.varve.broker.tiered.TieredReads;
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
import java.util.function.BiFunction;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this broker holds: keeps local logs in step with the metadata image (creating logs for new
 * partitions it leads, deleting logs of removed topics) and routes appends and reads to the leader's log.
 * On a single node the high watermark is the log end offset; replication will move it with the ISR.
 */
public final class ReplicaManager {
    private static final Logger log = LoggerFactory.getLogger(ReplicaManager.class);

    private final int nodeId;
    private final LogManager logManager;
    private final FetchPurgatory fetchPurgatory;
    private final BiFunction<MetadataSnapshot, Map<String, String>, LogConfig> logConfigs;
    /**
     * Partitions this broker should hold whose log could not be opened or created (no descriptor free, a failed log
     * dir): they answer the stored retriable error and are retried by {@link #retryUnavailableLogs()}.
     */
    private final java.util.concurrent.ConcurrentHashMap<TopicPartition, KafkaStorageException> unavailable =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** The newest snapshot reconciled, for retries and coordinator appends. */
    private volatile MetadataSnapshot reconciled;

    private final LeadershipAnnouncer leadership = new LeadershipAnnouncer();

    /** Where reads of offsets held only by remote storage go; set once at start-up when tiering is on. */
    private volatile TieredReads tieredReads = TieredReads.disabled();

    /** {@code logConfigs} gives a topic's effective log config from the snapshot's broker configs and its overrides. */
    public ReplicaManager(
            int nodeId,
            LogManager logManager,
            FetchPurgatory fetchPurgatory,
            BiFunction<MetadataSnapshot, Map<String, String>, LogConfig> logConfigs) {
        this.nodeId = nodeId;
        this.logManager = logManager;
        this.fetchPurgatory = fetchPurgatory;
        this.logConfigs = logConfigs;
    }

    /**
     * Reconciles local logs with the image: called on the metadata thread for every new image. Never throws: a
     * partition whose log cannot be opened or created is recorded as unavailable (it answers KAFKA_STORAGE_ERROR) and
     * retried, and every other partition and every later image is still applied.
     */
    public synchronized void applyMetadata(MetadataSnapshot snapshot) {
        reconciled = snapshot;
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
        for (PartitionLog existing : logManager.openLogs()) {
            Uuid id = wanted.get(existing.topicPartition());
            if (id == null || !id.equals(existing.topicId())) {
                log.info(
                        "Deleting log of {} (topic id {}): no longer in the metadata image",
                        existing.topicPartition(),
                        existing.topicId());
                deleteQuietly(existing.topicPartition());
            }
        }
        // A log start-up has not opened yet is checked against its topic id when it opens.
        for (TopicPartition notOpened : logManager.deferredPartitions()) {
            if (!wanted.containsKey(notOpened)) {
                log.info("Deleting log of {}: no longer in the metadata image", notOpened);
                deleteQuietly(notOpened);
            }
        }
        Map<String, LogConfig> configByTopic = new HashMap<>();
        Map<TopicPartition, LogManager.LogSpec> specs = new HashMap<>();
        for (Map.Entry<TopicPartition, Uuid> e : wanted.entrySet()) {
            TopicInfo topic = snapshot.topicsByName().get(e.getKey().topic());
            LogConfig config =
                    configByTopic.computeIfAbsent(topic.name(), n -> logConfigs.apply(snapshot, topic.configs()));
            specs.put(e.getKey(), new LogManager.LogSpec(e.getValue(), config));
        }
        unavailable.keySet().retainAll(specs.keySet());
        createLogs(specs);
        announceLeadership(leading);
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

    /** Creates the missing logs and applies the topic id and config to the others (deferred ones when they open). */
    private void createLogs(Map<TopicPartition, LogManager.LogSpec> specs) {
        Map<TopicPartition, KafkaStorageException> failed;
        try {
            failed = logManager.getOrCreateLogs(specs);
        } catch (RuntimeException e) {
            failed = new HashMap<>();
            for (TopicPartition tp : specs.keySet()) {
                if (logManager.openLogIfPresent(tp).isEmpty()) {
                    failed.put(tp, e instanceof KafkaStorageException kse ? kse : new KafkaStorageException(e));
                }
            }
        }
        int before = unavailable.size();
        for (TopicPartition tp : specs.keySet()) {
            if (!failed.containsKey(tp)) {
                unavailable.remove(tp);
            }
        }
        unavailable.putAll(failed);
        if (!failed.isEmpty() && unavailable.size() != before) {
            Map.Entry<TopicPartition, KafkaStorageException> first =
                    failed.entrySet().iterator().next();
            log.warn(
                    "{} partition logs could not be opened or created (for example {}: {}); they answer"
                            + " KAFKA_STORAGE_ERROR and are retried",
                    unavailable.size(),
                    first.getKey(),
                    first.getValue().getMessage());
        } else if (failed.isEmpty() && before > 0 && unavailable.isEmpty()) {
            log.info("Every partition log that could not be opened or created before is open now");
        }
    }

    /** Tries again to open or create the logs that failed; called periodically. */
    public synchronized void retryUnavailableLogs() {
        MetadataSnapshot snapshot = reconciled;
        if (snapshot == null || unavailable.isEmpty()) {
            return;
        }
        Map<String, LogConfig> configByTopic = new HashMap<>();
        Map<TopicPartition, LogManager.LogSpec> specs = new HashMap<>();
        for (TopicPartition tp : List.copyOf(unavailable.keySet())) {
            TopicInfo topic = snapshot.topicsByName().get(tp.topic());
            if (topic == null || !topic.partitions().containsKey(tp.partition())) {
                unavailable.remove(tp);
                continue;
            }
            LogConfig config =
                    configByTopic.computeIfAbsent(topic.name(), n -> logConfigs.apply(snapshot, topic.configs()));
            specs.put(tp, new LogManager.LogSpec(topic.id(), config));
        }
        if (!specs.isEmpty()) {
            createLogs(specs);
            announceLeadership(leading(snapshot));
        }
    }

    /** How many partitions this broker should hold have no usable log now. */
    public int unavailableLogCount() {
        return unavailable.size();
    }

    private void deleteQuietly(TopicPartition tp) {
        try {
            logManager.deleteLog(tp);
        } catch (RuntimeException e) {
            log.warn("Could not delete the log of {} yet: {}", tp, e.getMessage());
        }
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
        TopicInfo topic = snapshot.topicsByName().get(tp.topic());
        PartitionInfo partition = topic == null ? null : topic.partitions().get(tp.partition());
        if (partition == null) {
            throw new UnknownTopicOrPartitionException("This server does not host this topic-partition.");
        }
        if (partition.leader() != nodeId) {
            throw new NotLeaderOrFollowerException("This broker is not the leader of " + tp + ".");
        }
        Optional<PartitionLog> local = logManager.getLog(tp);
        if (local.isEmpty()) {
            KafkaStorageException failure = unavailable.get(tp);
            if (failure != null) {
                throw new KafkaStorageException(
                        "The log of " + tp + " could not be opened (" + failure.getMessage() + "); it is retried");
            }
            throw new NotLeaderOrFollowerException("The log of " + tp + " is not open yet.");
        }
        return local.get();
    }

    /** Appends as leader; on a single node the write is committed at once, so the high watermark follows. */
    public AppendResult appendAsLeader(PartitionLog partitionLog, ByteBuffer records, int leaderEpoch) {
        return appendAsLeader(partitionLog, records, leaderEpoch, AppendOrigin.CLIENT);
    }

    /**
     * {@link #appendAsLeader(PartitionLog, ByteBuffer, int)} for {@code origin}: a coordinator may append transaction
     * markers (control batches). Waiting fetches are woken, so read_committed ones see the last stable offset move.
     */
    public AppendResult appendAsLeader(
            PartitionLog partitionLog, ByteBuffer records, int leaderEpoch, AppendOrigin origin) {
        int bytes = records.remaining();
        AppendResult result;
        // The log's own monitor serialises appends; holding it while moving the high watermark keeps it monotonic.
        synchronized (partitionLog) {
            result = partitionLog.appendAsLeader(records, leaderEpoch, System.currentTimeMillis(), origin);
            if (!result.duplicate()) {
                partitionLog.updateHighWatermark(partitionLog.logEndOffset());
            }
        }
        if (!result.duplicate()) {
            fetchPurgatory.onAppend(partitionLog.topicPartition(), bytes);
        }
        return result;
    }

    /**
     * Appends a coordinator's records (control batches allowed) as leader at {@code leaderEpoch}; the future completes
     * with the last offset appended once the high watermark has passed it, that is once the write is committed, and
     * fails with {@link NotLeaderOrFollowerException} when this broker does not lead the partition at that epoch or
     * loses the leadership before the write is committed. Never blocks on replication.
     */
    public CompletableFuture<Long> appendAsCoordinator(TopicPartition tp, ByteBuffer records, int leaderEpoch) {
        try {
            MetadataSnapshot snapshot = reconciled;
            if (snapshot == null) {
                throw new NotLeaderOrFollowerException("This broker has not caught up with the metadata yet.");
            }
            PartitionLog partitionLog = leaderLog(snapshot, tp);
            int current = snapshot.topicsByName()
                    .get(tp.topic())
                    .partitions()
                    .get(tp.partition())
                    .leaderEpoch();
            if (current != leaderEpoch) {
                throw new NotLeaderOrFollowerException(
                        "The leader epoch of " + tp + " is " + current + ", not " + leaderEpoch + ".");
            }
            AppendResult result = appendAsLeader(partitionLog, records, leaderEpoch, AppendOrigin.COORDINATOR);
            return CompletableFuture.completedFuture(result.lastOffset());
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

    /** Enables remote reads; called once at start-up, before requests are served. */
    public void enableTieredReads(TieredReads reads) {
        this.tieredReads = java.util.Objects.requireNonNull(reads, "reads");
    }
}
