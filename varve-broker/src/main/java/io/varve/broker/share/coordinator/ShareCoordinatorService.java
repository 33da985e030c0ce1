package io.varve.broker.share.coordinator;

import io.varve.broker.group.CoordinatorTopic;
import io.varve.broker.group.OffsetsPartitionIo;
import io.varve.broker.metadata.MetadataSnapshot;
import io.varve.broker.replica.ReplicaManager;
import io.varve.coordinator.runtime.Outbox;
import io.varve.coordinator.share.ShareStateRecords;
import io.varve.coordinator.share.ShareStateShard;
import io.varve.storage.PartitionLog;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link ShareStateShard} per {@code __share_group_state} partition this broker leads. A key's partition is
 * Kafka's hash of "group:topicId:partition" modulo the partition count. An operation on a partition led elsewhere gets
 * NOT_COORDINATOR, on one without a leader (or before the topic exists, which the first call creates)
 * COORDINATOR_NOT_AVAILABLE, and while this broker replays the partition or its replayed records are not all committed
 * yet (a new leader's log may end above its high watermark) COORDINATOR_LOAD_IN_PROGRESS. A shard is loaded on first
 * use, on the calling thread (the partition is compacted and small), and dropped when this broker resigns it.
 *
 * <p>Each operation runs under its shard's lock; the record it produces is appended there as the partition's leader,
 * in order, and the answer completes once the record is committed. An append that fails drops the shard (the next
 * call replays the log: what it refused is gone) and answers NOT_COORDINATOR when leadership moved, else
 * COORDINATOR_NOT_AVAILABLE; both are retriable for the caller.
 */
public final class ShareCoordinatorService {
    private static final Logger log = LoggerFactory.getLogger(ShareCoordinatorService.class);

    /** A loaded partition: its shard, and the log end its replay reached (answers wait until that is committed). */
    private static final class Loaded {
        final ShareStateShard shard = new ShareStateShard();
        final PartitionLog partitionLog;
        final long replayedEndOffset;

        Loaded(PartitionLog partitionLog, long replayedEndOffset) {
            this.partitionLog = partitionLog;
            this.replayedEndOffset = replayedEndOffset;
        }
    }

    private final CoordinatorTopic topic;
    private final ReplicaManager replicaManager;
    private final int nodeId;
    private final Map<Integer, Loaded> loaded = new ConcurrentHashMap<>();

    public ShareCoordinatorService(CoordinatorTopic topic, ReplicaManager replicaManager, int nodeId) {
        this.topic = topic;
        this.replicaManager = replicaManager;
        this.nodeId = nodeId;
    }

    public CoordinatorTopic topic() {
        return topic;
    }

    /** The string whose hash places {@code key} on a partition, as Kafka builds it. */
    public static String coordinatorKey(String groupId, org.apache.kafka.common.Uuid topicId, int partition) {
        return groupId + ":" + topicId + ":" + partition;
    }

    public int partitionFor(ShareStateRecords.Key key) {
        return topic.partitionFor(coordinatorKey(key.groupId(), key.topicId(), key.partition()));
    }

    /**
     * Runs {@code operation} on the shard of {@code key}'s partition; the outcome completes once its record (if any)
     * is committed. Never fails: coordinator errors come back as outcomes.
     */
    public CompletableFuture<ShareStateShard.Outcome> run(
            ShareStateRecords.Key key, Function<ShareStateShard, ShareStateShard.Outcome> operation) {
        int partition = partitionFor(key);
        Loaded l;
        try {
            l = shard(partition);
        } catch (CoordinatorError e) {
            return CompletableFuture.completedFuture(e.outcome);
        }
        synchronized (l) {
            if (loaded.get(partition) != l) {
                return failed(Errors.NOT_COORDINATOR, name(partition) + " was just resigned here.");
            }
            ShareStateShard.Outcome outcome = operation.apply(l.shard);
            if (outcome.record() == null) {
                return CompletableFuture.completedFuture(outcome);
            }
            int epoch = replicaManager
                    .partition(new TopicPartition(topic.name(), partition))
                    .map(p -> p.leaderEpochIfLeader())
                    .orElse(-1);
            CompletableFuture<Long> written;
            try {
                written = topic.write(
                        partition,
                        epoch,
                        List.of(new Outbox.Write(Outbox.NO_PRODUCER_ID, (short) -1, List.of(outcome.record()))));
            } catch (RuntimeException e) {
                written = CompletableFuture.failedFuture(e);
            }
            return written.handle((offset, e) -> {
                if (e == null) {
                    return outcome;
                }
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                // the shard applied what the log refused: replay the log on the next call
                loaded.remove(partition, l);
                log.warn(
                        "Writing share state to {} failed, dropping its loaded state: {}",
                        name(partition),
                        cause.toString());
                return cause instanceof NotLeaderOrFollowerException
                        ? ShareStateShard.Outcome.failure(Errors.NOT_COORDINATOR, cause.getMessage())
                        : ShareStateShard.Outcome.failure(Errors.COORDINATOR_NOT_AVAILABLE, cause.getMessage());
            });
        }
    }

    /** The keys of {@code groupId} in every partition this broker leads (those not ready yet are skipped). */
    public List<ShareStateRecords.Key> keysOf(String groupId) {
        List<ShareStateRecords.Key> out = new ArrayList<>();
        if (topic.info() == null) {
            return out;
        }
        for (int p = 0; p < topic.numPartitions(); p++) {
            if (!topic.leads(p)) {
                continue;
            }
            try {
                Loaded l = shard(p);
                synchronized (l) {
                    out.addAll(l.shard.keysOf(groupId));
                }
            } catch (CoordinatorError e) {
                // not ready: that partition's keys are missing from this answer
            }
        }
        return out;
    }

    /** This broker stopped leading {@code partition} of the state topic: its shard is stale from now on. */
    public void resigned(int partition) {
        if (loaded.remove(partition) != null) {
            log.info("Share coordinator of {} unloaded", name(partition));
        }
    }

    /** The shard of {@code partition}, loaded on first use; a {@link CoordinatorError} when it cannot answer now. */
    private Loaded shard(int partition) {
        MetadataSnapshot.TopicInfo info = topic.info();
        if (info == null) {
            topic.ensureExists();
            throw new CoordinatorError(Errors.COORDINATOR_NOT_AVAILABLE, topic.name() + " is being created.");
        }
        MetadataSnapshot.PartitionInfo p = info.partitions().get(partition);
        if (p == null || p.leader() < 0) {
            throw new CoordinatorError(Errors.COORDINATOR_NOT_AVAILABLE, name(partition) + " has no leader now.");
        }
        if (p.leader() != nodeId) {
            loaded.remove(partition);
            throw new CoordinatorError(Errors.NOT_COORDINATOR, name(partition) + " is led by node " + p.leader() + ".");
        }
        Loaded l = loaded.get(partition);
        if (l == null) {
            l = load(partition);
        }
        if (l.partitionLog.highWatermark() < l.replayedEndOffset) {
            throw new CoordinatorError(
                    Errors.COORDINATOR_LOAD_IN_PROGRESS,
                    name(partition) + " is not committed up to its replayed end yet.");
        }
        return l;
    }

    private synchronized Loaded load(int partition) {
        Loaded l = loaded.get(partition);
        if (l != null) {
            return l;
        }
        PartitionLog partitionLog;
        try {
            partitionLog = topic.leaderLog(partition);
        } catch (RuntimeException e) {
            throw new CoordinatorError(
                    Errors.COORDINATOR_LOAD_IN_PROGRESS, name(partition) + " is not ready here yet.");
        }
        long end = partitionLog.logEndOffset();
        Loaded fresh = new Loaded(partitionLog, end);
        long records = OffsetsPartitionIo.replay(partitionLog, end, r -> {
            ShareStateRecords.Key k = ShareStateRecords.decodeKey(r.key());
            fresh.shard.replay(k, r.isTombstone() ? null : ShareStateRecords.decodeStored(r.value()));
        });
        log.info(
                "Share coordinator of {} loaded {} share-partition states from {} records",
                name(partition),
                fresh.shard.size(),
                records);
        loaded.put(partition, fresh);
        return fresh;
    }

    private static CompletableFuture<ShareStateShard.Outcome> failed(Errors error, String message) {
        return CompletableFuture.completedFuture(ShareStateShard.Outcome.failure(error, message));
    }

    /** Why a partition cannot answer now, as the outcome every key of it gets. */
    private static final class CoordinatorError extends RuntimeException {
        final ShareStateShard.Outcome outcome;

        CoordinatorError(Errors error, String message) {
            super(message, null, false, false);
            this.outcome = ShareStateShard.Outcome.failure(error, message);
        }
    }

    private String name(int partition) {
        return topic.name() + "-" + partition;
    }
}
