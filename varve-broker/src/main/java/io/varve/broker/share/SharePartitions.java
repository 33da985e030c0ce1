package io.varve.broker.share;

import io.varve.coordinator.group.share.ShareGroupConfig;
import io.varve.coordinator.share.AcknowledgeType;
import io.varve.coordinator.share.SharePartition;
import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share-partition state of every (group, partition) this broker leads, each used under its own lock. A state is
 * created on first use: from the {@link ShareStateStore} when it holds one, else by the group's
 * {@code share.auto.offset.reset}: at the partition's high watermark ({@code latest}, Kafka's default), its log start
 * ({@code earliest}) or the first offset written at or after now less a duration ({@code by_duration:D}). Every change is
 * written to the store. Reads go to the local log only (tiered segments are not served to share groups).
 */
public final class SharePartitions {
    private static final Logger log = LoggerFactory.getLogger(SharePartitions.class);
    /** Record batch header: the attributes' control bit, and the fields' byte positions. */
    private static final int CONTROL_FLAG = 0x20;

    private static final int LENGTH_POSITION = 8;
    private static final int ATTRIBUTES_POSITION = 21;
    private static final int LAST_OFFSET_DELTA_POSITION = 23;
    private static final int LOG_OVERHEAD_BYTES = 12;

    /** What one fetch of one partition acquired: the batches holding it (whole, as the log has them) and the ranges. */
    public record Fetched(ByteBuffer records, List<SharePartition.AcquiredRange> acquired) {
        static final Fetched NOTHING = new Fetched(null, List.of());
    }

    /** A group's own settings that share-partitions use (its group configs). */
    public interface ResetPolicy {
        /** {@code share.auto.offset.reset=earliest}: a new share-partition starts at the log start. */
        boolean earliest(String groupId);

        /** {@code share.auto.offset.reset=by_duration:D}: a new share-partition starts at now - D; null if not. */
        default java.time.Duration byDuration(String groupId) {
            return null;
        }

        /** {@code share.record.lock.duration.ms} of the group, else {@code brokerWideMs}. */
        default int lockDurationMs(String groupId, int brokerWideMs) {
            return brokerWideMs;
        }
    }

    private final ShareGroupConfig config;
    private final ShareStateStore store;
    private final ResetPolicy reset;
    private final LongSupplier clock;
    private final Map<SharePartitionKey, SharePartition> states = new ConcurrentHashMap<>();

    public SharePartitions(ShareGroupConfig config, ShareStateStore store, ResetPolicy reset, LongSupplier clock) {
        this.config = config;
        this.store = store;
        this.reset = reset;
        this.clock = clock;
    }

    public int lockDurationMs() {
        return config.recordLockDurationMs();
    }

    /** How long records acquired by a member of {@code groupId} stay locked. */
    public int lockDurationMs(String groupId) {
        return reset.lockDurationMs(groupId, config.recordLockDurationMs());
    }

    /** Where a share-partition without saved state starts, by the group's {@code share.auto.offset.reset}. */
    private long initialOffset(String groupId, PartitionLog partitionLog) {
        if (reset.earliest(groupId)) {
            return partitionLog.logStartOffset();
        }
        java.time.Duration back = reset.byDuration(groupId);
        if (back != null) {
            long sinceMs = clock.getAsLong() - back.toMillis();
            return partitionLog
                    .offsetForTimestamp(sinceMs)
                    .map(io.varve.storage.TimestampAndOffset::offset)
                    .orElse(partitionLog.highWatermark());
        }
        return partitionLog.highWatermark();
    }

    private SharePartition state(SharePartitionKey key, PartitionLog partitionLog) {
        return states.computeIfAbsent(key, k -> {
            SharePartition.Snapshot saved = store.read(k);
            SharePartition p;
            if (saved != null) {
                p = SharePartition.restore(saved, config.deliveryCountLimit(), config.partitionMaxRecordLocks());
            } else {
                long start = initialOffset(k.groupId(), partitionLog);
                p = new SharePartition(start, config.deliveryCountLimit(), config.partitionMaxRecordLocks());
            }
            log.info(
                    "Share group {} starts on partition {} of topic {} at offset {}",
                    k.groupId(),
                    k.partition(),
                    k.topicId(),
                    p.startOffset());
            return p;
        });
    }

    /** Acquires for {@code memberId} up to {@code maxRecords} records within {@code maxBytes} of the log. */
    public Fetched fetch(
            SharePartitionKey key, PartitionLog partitionLog, String memberId, int maxRecords, int maxBytes) {
        SharePartition p;
        try {
            p = state(key, partitionLog);
        } catch (CoordinatorLoadInProgressException e) {
            // the durable state is not readable yet: nothing to hand out now (clients take no error code for it)
            return Fetched.NOTHING;
        }
        synchronized (p) {
            long now = clock.getAsLong();
            long end = partitionLog.highWatermark();
            long from = p.nextFetchOffset(now);
            if (from < partitionLog.logStartOffset()) {
                p.resetStartOffset(partitionLog.logStartOffset()); // retention removed what was not delivered yet
                from = p.nextFetchOffset(now);
            }
            if (from >= end || maxRecords <= 0) {
                return Fetched.NOTHING;
            }
            LogReadResult read;
            try {
                read = partitionLog.read(from, Math.max(1, maxBytes), end, true);
            } catch (OffsetOutOfRangeException e) {
                return Fetched.NOTHING; // the log start moved meanwhile: the next fetch starts from it
            }
            ByteBuffer buffer = read.records();
            List<long[]> batches = new ArrayList<>();
            List<int[]> positions = new ArrayList<>();
            for (int pos = buffer.position(); pos + LOG_OVERHEAD_BYTES <= buffer.limit(); ) {
                int size = LOG_OVERHEAD_BYTES + buffer.getInt(pos + LENGTH_POSITION);
                if (pos + size > buffer.limit()) {
                    break;
                }
                long base = buffer.getLong(pos);
                long last = base + buffer.getInt(pos + LAST_OFFSET_DELTA_POSITION);
                if ((buffer.getShort(pos + ATTRIBUTES_POSITION) & CONTROL_FLAG) == 0) {
                    batches.add(new long[] {base, last}); // a control batch's offsets become archived gaps
                    positions.add(new int[] {pos, pos + size});
                }
                pos += size;
            }
            List<SharePartition.AcquiredRange> acquired =
                    p.acquire(memberId, batches, maxRecords, lockDurationMs(key.groupId()), now);
            if (acquired.isEmpty()) {
                return Fetched.NOTHING;
            }
            store.write(key, p.snapshot());
            long firstOffset = acquired.get(0).firstOffset();
            long lastOffset = acquired.get(acquired.size() - 1).lastOffset();
            int from0 = -1;
            int to = -1;
            for (int i = 0; i < batches.size(); i++) {
                if (from0 < 0 && batches.get(i)[1] >= firstOffset) {
                    from0 = positions.get(i)[0];
                }
                if (batches.get(i)[0] <= lastOffset) {
                    to = positions.get(i)[1];
                }
            }
            ByteBuffer records = buffer.duplicate();
            records.limit(to).position(from0);
            return new Fetched(records.slice(), acquired);
        }
    }

    /**
     * Applies acknowledgements of one partition: {@code types} has one type for the whole range or one per offset.
     * NONE, INVALID_RECORD_STATE (a record not acquired by the member, or its lock expired), or INVALID_REQUEST.
     */
    public Errors acknowledge(
            SharePartitionKey key, PartitionLog partitionLog, String memberId, List<AckBatch> batches) {
        SharePartition p = state(key, partitionLog);
        Errors result = Errors.NONE;
        synchronized (p) {
            long now = clock.getAsLong();
            for (AckBatch b : batches) {
                int count = (int) Math.min(Integer.MAX_VALUE, b.lastOffset() - b.firstOffset() + 1);
                if (b.lastOffset() < b.firstOffset()
                        || (b.types().size() != 1 && b.types().size() != count)) {
                    return Errors.INVALID_REQUEST;
                }
                long runStart = b.firstOffset();
                for (int i = 0; i < count; i++) {
                    byte code = b.types().get(b.types().size() == 1 ? 0 : i);
                    boolean runEnds = b.types().size() == 1
                            ? i == count - 1
                            : i == count - 1 || b.types().get(i + 1) != code;
                    if (!runEnds) {
                        continue;
                    }
                    AcknowledgeType type = AcknowledgeType.ofCode(code);
                    if (type == null) {
                        return Errors.INVALID_REQUEST;
                    }
                    long runEnd = b.firstOffset() + i;
                    if (!p.acknowledge(memberId, runStart, runEnd, type, now)) {
                        result = Errors.INVALID_RECORD_STATE;
                    }
                    runStart = runEnd + 1;
                }
            }
            store.write(key, p.snapshot());
        }
        return result;
    }

    /** One acknowledgement batch of the wire, its types as wire codes. */
    public record AckBatch(long firstOffset, long lastOffset, List<Byte> types) {}

    /** Releases what {@code memberId} holds on {@code keys} (its share session closed). */
    public void releaseAll(String memberId, List<SharePartitionKey> keys) {
        for (SharePartitionKey key : keys) {
            SharePartition p = states.get(key);
            if (p != null) {
                synchronized (p) {
                    if (p.releaseAll(memberId) > 0) {
                        store.write(key, p.snapshot());
                    }
                }
            }
        }
    }

    /** Whether a fetch of {@code key} could acquire something now (a long-polling fetch's wake-up check). */
    public boolean hasAcquirable(SharePartitionKey key, PartitionLog partitionLog) {
        SharePartition p = states.get(key);
        if (p == null) {
            return false;
        }
        synchronized (p) {
            return p.hasAcquirable(partitionLog.highWatermark(), clock.getAsLong());
        }
    }

    /** A share-partition's start offset and lag; both -1 when the group has not started on the partition. */
    public record Offsets(long startOffset, long lag) {}

    public Offsets offsets(SharePartitionKey key, PartitionLog partitionLog) {
        SharePartition p = states.get(key);
        if (p == null) {
            SharePartition.Snapshot saved = store.read(key);
            if (saved == null) {
                return new Offsets(-1, -1);
            }
            p = state(key, partitionLog);
        }
        synchronized (p) {
            return new Offsets(p.startOffset(), p.lag(partitionLog.highWatermark()));
        }
    }

    /** Moves {@code key}'s start offset (AlterShareGroupOffsets on an empty group). */
    public void resetStartOffset(SharePartitionKey key, long offset) {
        SharePartition p = states.computeIfAbsent(
                key, k -> new SharePartition(offset, config.deliveryCountLimit(), config.partitionMaxRecordLocks()));
        synchronized (p) {
            p.resetStartOffset(offset);
            store.write(key, p.snapshot());
        }
    }

    /** Forgets {@code key} (DeleteShareGroupOffsets, DeleteGroups). */
    public void delete(SharePartitionKey key) {
        states.remove(key);
        store.write(key, null);
    }

    /** The share-partitions this broker has state for in {@code groupId}, in memory or in the store. */
    public List<SharePartitionKey> keysOf(String groupId) {
        java.util.Set<SharePartitionKey> keys = new java.util.LinkedHashSet<>(store.keys(groupId));
        states.keySet().stream().filter(k -> k.groupId().equals(groupId)).forEach(keys::add);
        return List.copyOf(keys);
    }

    /**
     * Drops the in-memory states of every group on one partition this broker stopped leading: another leader
     * delivers its records now, and this one reads the states afresh from the store if it leads again.
     */
    public void resigned(org.apache.kafka.common.Uuid topicId, int partition) {
        states.keySet().removeIf(k -> k.topicId().equals(topicId) && k.partition() == partition);
    }

    /** Forgets every share-partition of {@code groupId} (DeleteGroups of a share group). */
    public void deleteGroup(String groupId) {
        keysOf(groupId).forEach(this::delete);
    }
}
