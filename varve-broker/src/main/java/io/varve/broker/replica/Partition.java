package io.varve.broker.replica;

import io.varve.broker.metadata.MetadataSnapshot.PartitionInfo;
import io.varve.broker.replica.state.EpochEndOffsets;
import io.varve.broker.replica.state.PartitionState;
import io.varve.broker.replica.state.PartitionState.IsrChange;
import io.varve.broker.replica.state.PartitionState.Outcome;
import io.varve.storage.AppendOrigin;
import io.varve.storage.AppendResult;
import io.varve.storage.PartitionLog;
import io.varve.storage.epoch.EpochEndOffset;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnknownLeaderEpochException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One partition this broker hosts, as leader or follower: its log and its {@link PartitionState}, both changed only
 * under this object's monitor, so an append, the leader epoch it is written with and the high watermark it moves are
 * one step. Events the state returns (the high watermark moved, an ISR change to send) are handed to {@link Events}
 * after the monitor is released.
 */
public final class Partition {
    private static final Logger log = LoggerFactory.getLogger(Partition.class);

    /** What the replica manager does when a partition's state moves; called without the partition's monitor. */
    public interface Events {
        void highWatermarkMoved(Partition partition);

        void isrChangeProposed(Partition partition, IsrChange change);

        /** A follower reported a higher log start offset (DeleteRecords waits for the low watermark). */
        default void followerLogStartMoved(Partition partition) {}
    }

    /** An append as leader and the epoch it was written at. */
    public record LeaderAppend(AppendResult result, int leaderEpoch) {}

    private final TopicPartition tp;
    private final int localId;
    /** Replaced only when a replica move to another log dir completes ({@link #replaceLog}), under the monitor. */
    private volatile PartitionLog partitionLog;

    private final Events events;
    private final LongSupplier clockMs;
    private final PartitionState state;
    private volatile Uuid topicId;
    private volatile int minInsyncReplicas = 1;
    /** The log start offset each follower last reported in its fetch, at this leader epoch; under the monitor. */
    private final java.util.Map<Integer, Long> followerLogStarts = new java.util.HashMap<>();

    Partition(
            TopicPartition tp,
            Uuid topicId,
            int localId,
            PartitionLog partitionLog,
            Events events,
            LongSupplier clockMs) {
        this.tp = tp;
        this.topicId = topicId;
        this.localId = localId;
        this.partitionLog = partitionLog;
        this.events = events;
        this.clockMs = clockMs;
        this.state = PartitionState.create(localId);
    }

    public TopicPartition topicPartition() {
        return tp;
    }

    public Uuid topicId() {
        return topicId;
    }

    public PartitionLog log() {
        return partitionLog;
    }

    /**
     * A move of this replica to another log dir completed: later appends, reads and truncations use {@code moved}.
     * The caller holds this partition's monitor around the whole swap, so no append falls between the logs.
     */
    synchronized void replaceLog(PartitionLog moved) {
        if (!moved.topicPartition().equals(tp)) {
            throw new IllegalArgumentException("the log of " + moved.topicPartition() + " is not one of " + tp);
        }
        partitionLog = moved;
    }

    void setMinInsyncReplicas(int minInsyncReplicas) {
        this.minInsyncReplicas = minInsyncReplicas;
    }

    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    // ---- role changes, on the metadata thread ----

    /**
     * Applies the image's view of the partition: becomes leader or follower on a new leader or leader epoch, or
     * adopts a newer partition epoch (an ISR change) at the same one.
     *
     * @return true when this broker's role or leader epoch changed
     */
    boolean applyImage(Uuid topicId, PartitionInfo info) {
        this.topicId = topicId;
        Outcome outcome;
        boolean changed;
        synchronized (this) {
            boolean sameEpoch = state.role() != null
                    && state.leaderEpoch() == info.leaderEpoch()
                    && state.leaderId() == info.leader();
            Set<Integer> isr = Arrays.stream(info.isr()).boxed().collect(Collectors.toSet());
            if (sameEpoch) {
                outcome = state.imageUpdated(info.partitionEpoch(), info.replicas(), isr, clockMs.getAsLong());
                changed = false;
            } else if (info.leader() == localId) {
                // followers asking where their epoch ends learn this epoch's start before its first record
                partitionLog.assignLeaderEpochAtLogEnd(info.leaderEpoch());
                followerLogStarts.clear();
                state.becomeLeader(
                        info.leaderEpoch(),
                        info.partitionEpoch(),
                        info.replicas(),
                        isr,
                        partitionLog.logEndOffset(),
                        partitionLog.highWatermark(),
                        clockMs.getAsLong());
                outcome = state.leaderAppended(partitionLog.logEndOffset());
                changed = true;
                log.info(
                        "Leading {} at leader epoch {} from offset {} with ISR {} and high watermark {}",
                        tp,
                        info.leaderEpoch(),
                        state.leaderEpochStartOffset(),
                        state.isr(),
                        state.highWatermark());
            } else {
                state.becomeFollower(
                        info.leader(),
                        info.leaderEpoch(),
                        info.partitionEpoch(),
                        info.replicas(),
                        isr,
                        partitionLog.logEndOffset(),
                        partitionLog.highWatermark());
                outcome = new Outcome(false, java.util.Optional.empty());
                changed = true;
                log.info("Following leader {} of {} at leader epoch {}", info.leader(), tp, info.leaderEpoch());
            }
            publishHighWatermark();
        }
        fire(outcome);
        return changed;
    }

    // ---- leader side ----

    /**
     * Appends as leader at its current epoch. With {@code requiredAcks} -1 the ISR must hold at least {@code
     * min.insync.replicas} members first (NOT_ENOUGH_REPLICAS otherwise; nothing is written).
     */
    public LeaderAppend appendAsLeader(ByteBuffer records, AppendOrigin origin, short requiredAcks) {
        return appendAsLeader(records, origin, requiredAcks, null);
    }

    /**
     * {@link #appendAsLeader(ByteBuffer, AppendOrigin, short)} of a produce verified with the transaction coordinator
     * (KIP-890 part 1; {@code guard} null: not verified, see {@link PartitionLog#appendAsLeader(ByteBuffer, int,
     * long, AppendOrigin, io.varve.storage.producer.VerificationGuard)}).
     */
    public LeaderAppend appendAsLeader(
            ByteBuffer records,
            AppendOrigin origin,
            short requiredAcks,
            io.varve.storage.producer.VerificationGuard guard) {
        LeaderAppend append;
        Outcome outcome;
        synchronized (this) {
            requireLeader();
            if (requiredAcks == -1 && state.isrSize() < minInsyncReplicas) {
                throw new NotEnoughReplicasException("The ISR of " + tp + " has " + state.isrSize()
                        + " member(s), fewer than min.insync.replicas=" + minInsyncReplicas + ".");
            }
            int epoch = state.leaderEpoch();
            AppendResult result = partitionLog.appendAsLeader(records, epoch, clockMs.getAsLong(), origin, guard);
            outcome = state.leaderAppended(partitionLog.logEndOffset());
            publishHighWatermark();
            append = new LeaderAppend(result, epoch);
        }
        fire(outcome);
        return append;
    }

    /** Where a write waiting to be committed stands ({@link #writeState}). */
    public enum WriteState {
        PENDING,
        COMMITTED,
        /** This broker no longer leads at the write's leader epoch. */
        LEADERSHIP_MOVED,
        /** Committed by an ISR smaller than min.insync.replicas (acks=all fails with NOT_ENOUGH_REPLICAS_AFTER_APPEND). */
        BELOW_MIN_ISR
    }

    /**
     * Whether the high watermark passed {@code requiredOffset} while this broker still leads at {@code leaderEpoch}:
     * one reading under the monitor for the produce purgatory, which asks once per write.
     */
    public synchronized WriteState writeState(long requiredOffset, int leaderEpoch, boolean checkMinIsr) {
        if (!state.isLeader() || state.leaderEpoch() != leaderEpoch) {
            return WriteState.LEADERSHIP_MOVED;
        }
        if (state.highWatermark() < requiredOffset) {
            return WriteState.PENDING;
        }
        if (checkMinIsr && state.maximalIsrSize() < minInsyncReplicas) {
            return WriteState.BELOW_MIN_ISR;
        }
        return WriteState.COMMITTED;
    }

    /** The leader epoch, when this broker leads. */
    public synchronized int leaderEpochIfLeader() {
        requireLeader();
        return state.leaderEpoch();
    }

    /** FENCED_LEADER_EPOCH for an older epoch than this broker's, UNKNOWN_LEADER_EPOCH for a newer one (KIP-320). */
    public synchronized void checkLeaderEpoch(int requestedEpoch) {
        if (requestedEpoch < 0) {
            return;
        }
        int current = state.leaderEpoch();
        if (requestedEpoch > current) {
            throw new UnknownLeaderEpochException(
                    "Leader epoch " + requestedEpoch + " of " + tp + " is newer than this broker's " + current + ".");
        }
        if (requestedEpoch < current) {
            throw new FencedLeaderEpochException(
                    "Leader epoch " + requestedEpoch + " of " + tp + " is older than this broker's " + current + ".");
        }
    }

    /** Refuses a replica fetch from a broker that is not a replica of this partition. */
    public synchronized void requireFollower(int replicaId) {
        requireLeader();
        if (replicaId == localId || !state.isReplica(replicaId)) {
            throw new NotLeaderOrFollowerException("Broker " + replicaId + " is not a follower of " + tp + " (replicas "
                    + Arrays.toString(state.replicas()) + ").");
        }
    }

    /**
     * {@link #followerFetched(int, long)} with the log start offset the follower reported: a move of it may complete
     * DeleteRecords waiting for the low watermark.
     */
    public void followerFetched(int replicaId, long fetchOffset, long followerLogStartOffset) {
        boolean moved = false;
        synchronized (this) {
            if (state.isLeader() && state.isReplica(replicaId) && followerLogStartOffset >= 0) {
                Long before = followerLogStarts.put(replicaId, followerLogStartOffset);
                moved = before == null || before != followerLogStartOffset;
            }
        }
        followerFetched(replicaId, fetchOffset);
        if (moved) {
            events.followerLogStartMoved(this);
        }
    }

    /**
     * The low watermark when this broker leads: the smallest log start offset of this log and of the followers in
     * {@code liveBrokers} that reported one at this leader epoch (Kafka leaves out replicas not alive or not heard
     * from). NOT_LEADER_OR_FOLLOWER on a follower.
     */
    public synchronized long lowWatermark(Set<Integer> liveBrokers) {
        requireLeader();
        long low = partitionLog.logStartOffset();
        for (java.util.Map.Entry<Integer, Long> e : followerLogStarts.entrySet()) {
            if (liveBrokers.contains(e.getKey()) && state.isReplica(e.getKey())) {
                low = Math.min(low, e.getValue());
            }
        }
        return low;
    }

    /** Records a follower's fetch from {@code fetchOffset}: may move the high watermark and expand the ISR. */
    public void followerFetched(int replicaId, long fetchOffset) {
        Outcome outcome;
        synchronized (this) {
            if (!state.isLeader() || !state.isReplica(replicaId)) {
                return;
            }
            outcome = state.followerFetched(replicaId, fetchOffset, partitionLog.logEndOffset(), clockMs.getAsLong());
            publishHighWatermark();
        }
        fire(outcome);
    }

    /** Proposes to drop the followers not caught up within {@code lagMaxMs}. */
    void maybeShrinkIsr(long lagMaxMs) {
        java.util.Optional<IsrChange> change;
        synchronized (this) {
            change = state.maybeShrinkIsr(clockMs.getAsLong(), lagMaxMs);
        }
        change.ifPresent(c -> {
            log.info(
                    "Shrinking the ISR of {} from {} to {}: the others lag more than {} ms",
                    tp,
                    isr(),
                    c.newIsr(),
                    lagMaxMs);
            events.isrChangeProposed(this, c);
        });
    }

    void isrChangeCommitted(int leaderEpoch, int partitionEpoch, Set<Integer> newIsr) {
        Outcome outcome;
        synchronized (this) {
            Set<Integer> before = state.isr();
            outcome = state.isrChangeCommitted(leaderEpoch, partitionEpoch, newIsr);
            if (!before.equals(state.isr())) {
                log.info("ISR of {} is now {} (was {}), partition epoch {}", tp, state.isr(), before, partitionEpoch);
            }
            publishHighWatermark();
        }
        fire(outcome);
    }

    void isrChangeFailed() {
        Outcome outcome;
        synchronized (this) {
            outcome = state.isrChangeFailed();
            publishHighWatermark();
        }
        fire(outcome);
    }

    /** Where {@code epoch} ended in this log's lineage (OffsetsForLeaderEpoch, diverging epochs). */
    public EpochEndOffset endOffsetForEpoch(int epoch) {
        return partitionLog.endOffsetForEpoch(epoch).orElse(EpochEndOffset.UNDEFINED);
    }

    /** The divergence of a follower's history that fetches from {@code fetchOffset}, or null. */
    public EpochEndOffset divergence(int lastFetchedEpoch, long fetchOffset) {
        if (lastFetchedEpoch < 0) {
            return null;
        }
        return EpochEndOffsets.divergence(endOffsetForEpoch(lastFetchedEpoch), lastFetchedEpoch, fetchOffset);
    }

    // ---- follower side ----

    /**
     * Appends what the leader sent, at the offsets and epochs it wrote them with, and takes the leader's high
     * watermark (bounded by this log's end). Dropped when this broker no longer follows at {@code leaderEpoch}.
     */
    public boolean appendAsFollower(
            int leaderEpoch, ByteBuffer records, long leaderHighWatermark, long leaderLogStartOffset) {
        boolean hwMoved;
        synchronized (this) {
            if (state.isLeader() || state.leaderEpoch() != leaderEpoch) {
                return false;
            }
            if (records.hasRemaining()) {
                FollowerWrites.append(partitionLog, records);
            }
            long before = state.highWatermark();
            state.followerLogUpdated(partitionLog.logEndOffset(), leaderHighWatermark);
            publishHighWatermark();
            if (leaderLogStartOffset > partitionLog.logStartOffset()) {
                // records the leader deleted (retention, DeleteRecords) go here too; bounded by the high watermark
                partitionLog.advanceLogStartOffset(leaderLogStartOffset, "the leader's log start offset");
            }
            hwMoved = state.highWatermark() != before;
        }
        if (hwMoved) {
            // consumers reading from this follower (KIP-392) wait for its high watermark, not for appends
            events.highWatermarkMoved(this);
        }
        return true;
    }

    /** Removes the suffix from {@code offset} on (it diverged from the leader's history). */
    public boolean truncateTo(int leaderEpoch, long offset) {
        synchronized (this) {
            if (state.isLeader() || state.leaderEpoch() != leaderEpoch) {
                return false;
            }
            if (offset < partitionLog.logEndOffset()) {
                log.info(
                        "Truncating {} to offset {} (was {}): it diverged from leader {}'s history",
                        tp,
                        offset,
                        partitionLog.logEndOffset(),
                        state.leaderId());
            }
            // also at the log end: drops a leader epoch recorded there without records (see PartitionLog.truncateTo)
            FollowerWrites.truncateTo(partitionLog, offset);
            state.followerLogUpdated(partitionLog.logEndOffset(), state.highWatermark());
            publishHighWatermark();
        }
        return true;
    }

    /** Empties the log and starts it at {@code offset} (the leader's log start passed this log's end). */
    public boolean truncateFullyAndStartAt(int leaderEpoch, long offset) {
        synchronized (this) {
            if (state.isLeader() || state.leaderEpoch() != leaderEpoch) {
                return false;
            }
            log.info("Emptying {} to start at the leader's log start offset {}", tp, offset);
            FollowerWrites.truncateFullyAndStartAt(partitionLog, offset);
            state.followerLogUpdated(partitionLog.logEndOffset(), offset);
            publishHighWatermark();
        }
        return true;
    }

    /**
     * KIP-405's follower path: empties the log, starts it at {@code offset} (where the leader's remote tier ends, at
     * or past its local log start), then lets {@code restore} install the state the remote tier holds for the offsets
     * below (leader epochs, producer state, the log start offset), all under the partition's lock.
     */
    public boolean startFromRemote(int leaderEpoch, long offset, java.util.function.Consumer<PartitionLog> restore) {
        synchronized (this) {
            if (state.isLeader() || state.leaderEpoch() != leaderEpoch) {
                return false;
            }
            log.info("Emptying {} to start at offset {}, below which the remote tier holds its data", tp, offset);
            FollowerWrites.truncateFullyAndStartAt(partitionLog, offset);
            restore.accept(partitionLog);
            state.followerLogUpdated(partitionLog.logEndOffset(), offset);
            publishHighWatermark();
        }
        return true;
    }

    /**
     * The log end offsets of the in-sync followers whose log holds {@code offset} (as last reported by their fetches),
     * when this broker leads: where a consumer may be sent to read it (KIP-392). Empty on a follower.
     */
    public synchronized java.util.Map<Integer, Long> inSyncFollowersHolding(long offset) {
        java.util.Map<Integer, Long> holding = new java.util.TreeMap<>();
        if (!state.isLeader()) {
            return holding;
        }
        for (int id : state.isr()) {
            if (id == localId) {
                continue;
            }
            state.follower(id).ifPresent(f -> {
                if (f.logEndOffset() >= offset) {
                    holding.put(id, f.logEndOffset());
                }
            });
        }
        return holding;
    }

    /** Whether this broker follows the partition (it has a leader that is not this broker). */
    public synchronized boolean isFollower() {
        return state.role() == PartitionState.Role.FOLLOWER;
    }

    // ---- reads of the state ----

    /** False until the first image applied to it. */
    public synchronized boolean hasRole() {
        return state.role() != null;
    }

    public synchronized boolean isLeader() {
        return state.isLeader();
    }

    public synchronized int leaderId() {
        return state.leaderId();
    }

    public synchronized int leaderEpoch() {
        return state.leaderEpoch();
    }

    public synchronized Set<Integer> isr() {
        return state.isr();
    }

    public synchronized Set<Integer> maximalIsr() {
        return state.maximalIsr();
    }

    public synchronized long highWatermark() {
        return state.highWatermark();
    }

    public synchronized boolean highWatermarkKnown() {
        return state.highWatermarkKnown();
    }

    public synchronized int partitionEpoch() {
        return state.partitionEpoch();
    }

    private void requireLeader() {
        if (!state.isLeader()) {
            throw new NotLeaderOrFollowerException("This broker is not the leader of " + tp + ".");
        }
    }

    private void publishHighWatermark() {
        partitionLog.updateHighWatermark(state.highWatermark());
    }

    private void fire(Outcome outcome) {
        if (outcome.highWatermarkMoved()) {
            events.highWatermarkMoved(this);
        }
        outcome.isrChange().ifPresent(c -> {
            log.info("Expanding the ISR of {} from {} to {}", tp, isr(), c.newIsr());
            events.isrChangeProposed(this, c);
        });
    }

    @Override
    public String toString() {
        return "Partition(" + tp + ")";
    }
}
