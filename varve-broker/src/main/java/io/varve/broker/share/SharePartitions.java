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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The share-partition state of every (group, partition) this broker leads, each used under its own lock. A state is
 * loaded on first use from the share coordinator ({@link ShareStateStore}, ReadShareGroupState at this broker's
 * leader epoch of the partition); until the answer is there the partition hands out nothing (a fetch gets no records,
 * an acknowledgement COORDINATOR_LOAD_IN_PROGRESS). A state nobody initialized starts at the partition's high
 * watermark ({@code share.auto.offset.reset=latest}, Kafka's default), its log start ({@code earliest}) or the first
 * offset written at or after now less a duration ({@code by_duration:D}), by the group's config, and is written at
 * once. Every change is written to the coordinator; an acknowledgement's answer waits for its write, so an
 * acknowledgement answered NONE survives the leader (a new leader reads it back). A write fenced by the coordinator
 * (FENCED_STATE_EPOCH: the offsets were reset; FENCED_LEADER_EPOCH: another broker leads now) drops the state here,
 * to be read afresh. Reads go to the local log only (tiered segments are not served to share groups).
 */
public final class SharePartitions {
    private static final Logger log = LoggerFactory.getLogger(SharePartitions.class);
    /** Record batch header: the attributes' control bit, and the fields' byte positions. */
    private static final int CONTROL_FLAG = 0x20;

    private static final int LENGTH_POSITION = 8;
    private static final int ATTRIBUTES_POSITION = 21;
    private static final int LAST_OFFSET_DELTA_POSITION = 23;
    private static final int LOG_OVERHEAD_BYTES = 12;
    /** How long an admin request (describe, alter offsets) waits for the coordinator's answer. */
    static final long ADMIN_WAIT_MS = 10_000;

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

    /** A loaded state and the state epoch it was read at (its writes carry it). */
    private static final class Held {
        final SharePartition p;
        final int stateEpoch;

        Held(SharePartition p, int stateEpoch) {
            this.p = p;
            this.stateEpoch = stateEpoch;
        }
    }

    private final ShareGroupConfig config;
    private final ShareStateStore store;
    private final ResetPolicy reset;
    private final LongSupplier clock;
    private final ToIntFunction<SharePartitionKey> leaderEpochOf;
    private final Map<SharePartitionKey, Held> states = new ConcurrentHashMap<>();
    private final Map<SharePartitionKey, CompletableFuture<Void>> loading = new ConcurrentHashMap<>();

    /** {@code leaderEpochOf}: the leader epoch of a key's partition in the current metadata (-1 when unknown). */
    public SharePartitions(
            ShareGroupConfig config,
            ShareStateStore store,
            ResetPolicy reset,
            LongSupplier clock,
            ToIntFunction<SharePartitionKey> leaderEpochOf) {
        this.config = config;
        this.store = store;
        this.reset = reset;
        this.clock = clock;
        this.leaderEpochOf = leaderEpochOf;
    }

    private volatile java.util.function.Consumer<SharePartitionKey> onStateLoaded = key -> {};

    /** Told (on the thread the answer came on) when a state read from the coordinator is ready here. */
    public void onStateLoaded(java.util.function.Consumer<SharePartitionKey> listener) {
        this.onStateLoaded = listener;
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

    /** The loaded state of {@code key}; starts loading it and throws COORDINATOR_LOAD_IN_PROGRESS when not loaded. */
    private Held state(SharePartitionKey key, PartitionLog partitionLog) {
        Held h = states.get(key);
        if (h != null) {
            return h;
        }
        CompletableFuture<Void> mine = new CompletableFuture<>();
        if (loading.putIfAbsent(key, mine) == null) {
            int leaderEpoch = leaderEpochOf.applyAsInt(key);
            store.read(key, leaderEpoch).whenComplete((loaded, e) -> {
                try {
                    if (loading.get(key) == mine) {
                        if (e == null && loaded.error() == Errors.NONE) {
                            states.putIfAbsent(key, create(key, loaded, partitionLog, leaderEpoch));
                            loading.remove(key, mine);
                            onStateLoaded.accept(key);
                        } else {
                            log.debug(
                                    "Reading the share state of {} failed: {}",
                                    key,
                                    e != null ? e.toString() : loaded.error());
                        }
                        loading.remove(key, mine);
                    }
                } finally {
                    mine.complete(null);
                }
            });
        }
        h = states.get(key);
        if (h == null) {
            throw new CoordinatorLoadInProgressException("The share state of " + key + " is being read.");
        }
        return h;
    }

    private Held create(
            SharePartitionKey key, ShareStateStore.Loaded loaded, PartitionLog partitionLog, int leaderEpoch) {
        SharePartition p;
        if (loaded.initialized()) {
            p = SharePartition.restore(
                    loaded.snapshot(), config.deliveryCountLimit(), config.partitionMaxRecordLocks());
        } else {
            long start = initialOffset(key.groupId(), partitionLog);
            p = new SharePartition(start, config.deliveryCountLimit(), config.partitionMaxRecordLocks());
            // the start is durable before anything is handed out: a later leader starts here too
            store.write(key, loaded.stateEpoch(), leaderEpoch, p.snapshot());
        }
        log.info(
                "Share group {} starts on partition {} of topic {} at offset {} (state epoch {}, leader epoch {})",
                key.groupId(),
                key.partition(),
                key.topicId(),
                p.startOffset(),
                loaded.stateEpoch(),
                leaderEpoch);
        return new Held(p, loaded.stateEpoch());
    }

    /** Writes {@code h}'s state (the caller holds its lock, so writes leave in the order of the changes). */
    private CompletableFuture<Errors> persist(SharePartitionKey key, Held h) {
        return store.write(key, h.stateEpoch, leaderEpochOf.applyAsInt(key), h.p.snapshot())
                .thenApply(error -> {
                    if (error == Errors.FENCED_STATE_EPOCH || error == Errors.FENCED_LEADER_EPOCH) {
                        if (states.remove(key, h)) {
                            log.info("The share state of {} here is stale ({}): it is read again", key, error);
                        }
                    }
                    return error;
                });
    }

    /** Acquires for {@code memberId} up to {@code maxRecords} records within {@code maxBytes} of the log. */
    public Fetched fetch(
            SharePartitionKey key, PartitionLog partitionLog, String memberId, int maxRecords, int maxBytes) {
        Held h;
        try {
            h = state(key, partitionLog);
        } catch (CoordinatorLoadInProgressException e) {
            // the durable state is not readable yet: nothing to hand out now (clients take no error code for it)
            return Fetched.NOTHING;
        }
        SharePartition p = h.p;
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
            persist(key, h); // delivery counts; not awaited: a lost one only lowers a count by one
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
     * Completes once the new state is written: NONE, INVALID_RECORD_STATE (a record not acquired by the member, or
     * its lock expired), INVALID_REQUEST, or the coordinator's error when the write failed.
     */
    public CompletableFuture<Errors> acknowledge(
            SharePartitionKey key, PartitionLog partitionLog, String memberId, List<AckBatch> batches) {
        return acknowledge(key, partitionLog, memberId, batches, false);
    }

    /**
     * As above; {@code renewAllowed} (ShareFetch / ShareAcknowledge v2) takes RENEW, which restarts the locks of
     * records the member holds and writes nothing (a lock is not durable). Without it RENEW is INVALID_REQUEST.
     */
    public CompletableFuture<Errors> acknowledge(
            SharePartitionKey key,
            PartitionLog partitionLog,
            String memberId,
            List<AckBatch> batches,
            boolean renewAllowed) {
        Held h;
        try {
            h = state(key, partitionLog);
        } catch (CoordinatorLoadInProgressException e) {
            // not read here yet (this broker just became the leader): the member holds nothing here, and
            // kafka-clients takes COORDINATOR_LOAD_IN_PROGRESS on a share partition as fatal
            return CompletableFuture.completedFuture(Errors.INVALID_RECORD_STATE);
        }
        SharePartition p = h.p;
        Errors result = Errors.NONE;
        boolean changed = false;
        CompletableFuture<Errors> written;
        synchronized (p) {
            long now = clock.getAsLong();
            outer:
            for (AckBatch b : batches) {
                int count = (int) Math.min(Integer.MAX_VALUE, b.lastOffset() - b.firstOffset() + 1);
                if (b.lastOffset() < b.firstOffset()
                        || (b.types().size() != 1 && b.types().size() != count)) {
                    result = Errors.INVALID_REQUEST;
                    break;
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
                    if (type == null || (type == AcknowledgeType.RENEW && !renewAllowed)) {
                        result = Errors.INVALID_REQUEST;
                        break outer;
                    }
                    long runEnd = b.firstOffset() + i;
                    if (!p.acknowledge(memberId, runStart, runEnd, type, now, config.recordLockDurationMs())) {
                        result = Errors.INVALID_RECORD_STATE;
                    } else if (type != AcknowledgeType.RENEW) {
                        changed = true;
                    }
                    runStart = runEnd + 1;
                }
            }
            written = changed ? persist(key, h) : CompletableFuture.completedFuture(Errors.NONE);
        }
        Errors local = result;
        return written.thenApply(w -> local != Errors.NONE ? local : w);
    }

    /** One acknowledgement batch of the wire, its types as wire codes. */
    public record AckBatch(long firstOffset, long lastOffset, List<Byte> types) {}

    /** Releases what {@code memberId} holds on {@code keys} (its share session closed). */
    public void releaseAll(String memberId, List<SharePartitionKey> keys) {
        for (SharePartitionKey key : keys) {
            Held h = states.get(key);
            if (h != null) {
                synchronized (h.p) {
                    if (h.p.releaseAll(memberId) > 0) {
                        persist(key, h);
                    }
                }
            }
        }
    }

    /** Whether a fetch of {@code key} could acquire something now (a long-polling fetch's wake-up check). */
    public boolean hasAcquirable(SharePartitionKey key, PartitionLog partitionLog) {
        Held h = states.get(key);
        if (h == null) {
            return false; // not loaded yet: a fetch starts loading it, and the next one acquires
        }
        synchronized (h.p) {
            return h.p.hasAcquirable(partitionLog.highWatermark(), clock.getAsLong());
        }
    }

    /** A share-partition's start offset and lag; both -1 when the group has not started on the partition. */
    public record Offsets(long startOffset, long lag) {}

    /**
     * The start offset and lag of {@code key}: from the loaded state, else from the coordinator's summary (which
     * this waits for, up to {@link #ADMIN_WAIT_MS}; an admin request's path, not a fetch's).
     */
    public Offsets offsets(SharePartitionKey key, PartitionLog partitionLog) {
        Held h = states.get(key);
        if (h != null) {
            synchronized (h.p) {
                return new Offsets(h.p.startOffset(), h.p.lag(partitionLog.highWatermark()));
            }
        }
        ShareStateStore.Summary s = await(store.summary(key, leaderEpochOf.applyAsInt(key)));
        if (s.error() != Errors.NONE) {
            throw s.error().exception();
        }
        if (s.startOffset() < 0) {
            return new Offsets(-1, -1);
        }
        long lag = Math.max(0, partitionLog.highWatermark() - s.startOffset() - s.deliveryCompleteCount());
        return new Offsets(s.startOffset(), lag);
    }

    /** The start offset of a share-partition led elsewhere, from its coordinator's summary; the lag is unknown (-1). */
    public Offsets offsetsFromCoordinator(SharePartitionKey key) {
        ShareStateStore.Summary s = await(store.summary(key, leaderEpochOf.applyAsInt(key)));
        if (s.error() != Errors.NONE) {
            throw s.error().exception();
        }
        return new Offsets(s.startOffset(), -1);
    }

    /**
     * Moves {@code key}'s start offset (AlterShareGroupOffsets on an empty group): the coordinator initializes the
     * state afresh at the next state epoch, which fences writes of the state read before; this broker reads it again.
     */
    public void resetStartOffset(SharePartitionKey key, long offset) {
        Held h = states.remove(key);
        int stateEpoch;
        if (h != null) {
            stateEpoch = h.stateEpoch;
        } else {
            ShareStateStore.Summary s = await(store.summary(key, leaderEpochOf.applyAsInt(key)));
            if (s.error() != Errors.NONE) {
                throw s.error().exception();
            }
            stateEpoch = Math.max(0, s.stateEpoch());
        }
        Errors error = await(store.initialize(key, stateEpoch + 1, offset));
        states.remove(key);
        if (error != Errors.NONE) {
            throw error.exception();
        }
    }

    /** Forgets {@code key} (DeleteShareGroupOffsets, DeleteGroups). */
    public void delete(SharePartitionKey key) {
        states.remove(key);
        store.delete(key);
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
        loading.keySet().removeIf(k -> k.topicId().equals(topicId) && k.partition() == partition);
    }

    /**
     * Forgets every share-partition of {@code groupId}: those with a state here or in a coordinator this broker runs,
     * and {@code everyPartition} (the group's states may live on any coordinator of the cluster, which keeps no
     * list of a group's keys: each is asked to delete the ones it has, in one request per coordinator).
     */
    public void deleteGroup(String groupId, List<SharePartitionKey> everyPartition) {
        java.util.Set<SharePartitionKey> keys = new java.util.LinkedHashSet<>(keysOf(groupId));
        keys.addAll(everyPartition);
        keys.forEach(states::remove);
        store.deleteAll(List.copyOf(keys));
    }

    private static <T> T await(CompletableFuture<T> answer) {
        try {
            return answer.get(ADMIN_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw Errors.REQUEST_TIMED_OUT.exception();
        } catch (java.util.concurrent.ExecutionException e) {
            throw Errors.forException(e.getCause()).exception();
        } catch (java.util.concurrent.TimeoutException e) {
            throw Errors.REQUEST_TIMED_OUT.exception(
                    "The share coordinator did not answer in " + ADMIN_WAIT_MS + " ms.");
        }
    }
}
