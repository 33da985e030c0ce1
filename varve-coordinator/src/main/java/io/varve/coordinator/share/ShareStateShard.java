package io.varve.coordinator.share;

import io.varve.coordinator.group.record.CoordinatorRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share coordinator's state of one {@code __share_group_state} partition (KIP-932): the durable state of every
 * share-partition whose key maps to it, with two epochs each. The <em>state epoch</em> is set by an initialization
 * (the group's start, an offsets reset) and fences writes of a share-partition leader that read an older state
 * (FENCED_STATE_EPOCH). The <em>leader epoch</em> is the highest epoch of the data partition's leader that read or
 * wrote the state: a deposed leader's later read or write gets FENCED_LEADER_EPOCH, so it cannot overwrite what its
 * successor loaded.
 *
 * <p>Pure and single-threaded: each operation checks, changes the state at once, and returns the record the caller
 * must append (and have committed) before answering; a caller whose append fails drops this shard and replays the
 * log into a new one. {@link #replay} applies a record read back from the log.
 *
 * <p>Transitions per key: absent → (initialize | write) → present; present → (initialize at an equal or higher state
 * epoch | write | read at a higher leader epoch) → present; present → delete → absent.
 */
public final class ShareStateShard {
    /** Kafka's start offset of a share-partition nobody initialized yet, and its state epoch. */
    public static final long UNINITIALIZED_START_OFFSET = -1;

    public static final int DEFAULT_STATE_EPOCH = 0;

    /** An answer: an error, or the state now held (null when there is none), and the record to append, if any. */
    public record Outcome(Errors error, String message, ShareStateRecords.Stored state, CoordinatorRecord record) {
        public static Outcome failure(Errors error, String message) {
            return new Outcome(error, message, null, null);
        }

        public boolean ok() {
            return error == Errors.NONE;
        }
    }

    private final Map<ShareStateRecords.Key, ShareStateRecords.Stored> states = new HashMap<>();

    /** Applies one record of the log (a null value deletes). */
    public void replay(ShareStateRecords.Key key, ShareStateRecords.Stored value) {
        if (value == null) {
            states.remove(key);
        } else {
            states.put(key, value);
        }
    }

    public int size() {
        return states.size();
    }

    /** The keys of {@code groupId} held here. */
    public List<ShareStateRecords.Key> keysOf(String groupId) {
        return states.keySet().stream().filter(k -> k.groupId().equals(groupId)).toList();
    }

    /**
     * InitializeShareGroupState: the state starts afresh at {@code startOffset} (-1: kept) with {@code stateEpoch},
     * which must not be below the stored one.
     */
    public Outcome initialize(ShareStateRecords.Key key, int stateEpoch, long startOffset) {
        Outcome invalid = invalid(key);
        if (invalid != null) {
            return invalid;
        }
        ShareStateRecords.Stored current = states.get(key);
        if (current != null && current.stateEpoch() > stateEpoch) {
            return Outcome.failure(
                    Errors.FENCED_STATE_EPOCH,
                    "State epoch " + stateEpoch + " is older than the stored " + current.stateEpoch() + ".");
        }
        long start = startOffset >= 0
                ? startOffset
                : current == null
                        ? UNINITIALIZED_START_OFFSET
                        : current.snapshot().startOffset();
        int leaderEpoch = current == null ? -1 : current.leaderEpoch();
        return put(
                key,
                new ShareStateRecords.Stored(stateEpoch, leaderEpoch, new SharePartition.Snapshot(start, List.of())));
    }

    /**
     * ReadShareGroupState by the leader at {@code leaderEpoch}: a leader older than the last one seen is fenced; a
     * newer one is remembered (a record) so the one before it is fenced from now on. An absent state reads as
     * uninitialized (start offset -1, state epoch 0), as Kafka answers.
     */
    public Outcome read(ShareStateRecords.Key key, int leaderEpoch) {
        Outcome invalid = invalid(key);
        if (invalid != null) {
            return invalid;
        }
        ShareStateRecords.Stored current = states.get(key);
        if (current == null) {
            return new Outcome(
                    Errors.NONE,
                    null,
                    new ShareStateRecords.Stored(
                            DEFAULT_STATE_EPOCH,
                            -1,
                            new SharePartition.Snapshot(UNINITIALIZED_START_OFFSET, List.of())),
                    null);
        }
        if (current.leaderEpoch() > leaderEpoch) {
            return fencedLeader(leaderEpoch, current);
        }
        if (current.leaderEpoch() < leaderEpoch) {
            return put(key, new ShareStateRecords.Stored(current.stateEpoch(), leaderEpoch, current.snapshot()));
        }
        return new Outcome(Errors.NONE, null, current, null);
    }

    /** ReadShareGroupStateSummary: as {@link #read} without remembering the leader epoch. */
    public Outcome summary(ShareStateRecords.Key key, int leaderEpoch) {
        Outcome invalid = invalid(key);
        if (invalid != null) {
            return invalid;
        }
        ShareStateRecords.Stored current = states.get(key);
        if (current != null && current.leaderEpoch() > leaderEpoch) {
            return fencedLeader(leaderEpoch, current);
        }
        return new Outcome(
                Errors.NONE,
                null,
                current != null
                        ? current
                        : new ShareStateRecords.Stored(
                                DEFAULT_STATE_EPOCH,
                                -1,
                                new SharePartition.Snapshot(UNINITIALIZED_START_OFFSET, List.of())),
                null);
    }

    /**
     * WriteShareGroupState: {@code batches} overlay the stored ones ({@link ShareStateBatches#merge}), {@code
     * startOffset} -1 keeps the stored start offset; fenced when either epoch is older than the stored one. Writing a
     * state nobody initialized creates it.
     */
    public Outcome write(
            ShareStateRecords.Key key,
            int stateEpoch,
            int leaderEpoch,
            long startOffset,
            List<SharePartition.StateBatch> batches) {
        Outcome invalid = invalid(key);
        if (invalid != null) {
            return invalid;
        }
        for (SharePartition.StateBatch b : batches) {
            if (b.firstOffset() < 0 || b.lastOffset() < b.firstOffset() || b.deliveryCount() < 0) {
                return Outcome.failure(
                        Errors.INVALID_REQUEST,
                        "State batch " + b.firstOffset() + "-" + b.lastOffset() + " is not a valid range.");
            }
        }
        ShareStateRecords.Stored current = states.get(key);
        if (current != null && current.leaderEpoch() > leaderEpoch) {
            return fencedLeader(leaderEpoch, current);
        }
        if (current != null && current.stateEpoch() > stateEpoch) {
            return Outcome.failure(
                    Errors.FENCED_STATE_EPOCH,
                    "State epoch " + stateEpoch + " is older than the stored " + current.stateEpoch() + ".");
        }
        long start = startOffset >= 0
                ? startOffset
                : current == null
                        ? UNINITIALIZED_START_OFFSET
                        : current.snapshot().startOffset();
        List<SharePartition.StateBatch> stored =
                current == null ? List.of() : current.snapshot().batches();
        List<SharePartition.StateBatch> merged = ShareStateBatches.merge(stored, batches, Math.max(0, start));
        int epoch = current == null ? stateEpoch : Math.max(stateEpoch, current.stateEpoch());
        int leader = current == null ? leaderEpoch : Math.max(leaderEpoch, current.leaderEpoch());
        return put(key, new ShareStateRecords.Stored(epoch, leader, new SharePartition.Snapshot(start, merged)));
    }

    /** DeleteShareGroupState: forgets the state (a tombstone); deleting an absent state succeeds. */
    public Outcome delete(ShareStateRecords.Key key) {
        Outcome invalid = invalid(key);
        if (invalid != null) {
            return invalid;
        }
        if (!states.containsKey(key)) {
            return new Outcome(Errors.NONE, null, null, null);
        }
        states.remove(key);
        return new Outcome(
                Errors.NONE,
                null,
                null,
                new CoordinatorRecord(ShareStateRecords.key(key.groupId(), key.topicId(), key.partition()), null));
    }

    /**
     * How many offsets from the start offset on are done (acknowledged or archived): ReadShareGroupStateSummary v1's
     * DeliveryCompleteCount.
     */
    public static int deliveryCompleteCount(SharePartition.Snapshot s) {
        long done = 0;
        for (SharePartition.StateBatch b : s.batches()) {
            if (b.state().isFinal() && b.lastOffset() >= s.startOffset()) {
                done += b.lastOffset() - Math.max(b.firstOffset(), s.startOffset()) + 1;
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, done);
    }

    private Outcome put(ShareStateRecords.Key key, ShareStateRecords.Stored value) {
        states.put(key, value);
        return new Outcome(
                Errors.NONE,
                null,
                value,
                new CoordinatorRecord(
                        ShareStateRecords.key(key.groupId(), key.topicId(), key.partition()),
                        ShareStateRecords.value(value)));
    }

    private static Outcome fencedLeader(int leaderEpoch, ShareStateRecords.Stored current) {
        return Outcome.failure(
                Errors.FENCED_LEADER_EPOCH,
                "Leader epoch " + leaderEpoch + " is older than the last one seen, " + current.leaderEpoch() + ".");
    }

    private static Outcome invalid(ShareStateRecords.Key key) {
        if (key.groupId() == null || key.groupId().isEmpty()) {
            return Outcome.failure(Errors.INVALID_REQUEST, "The group id must be set.");
        }
        if (key.topicId() == null || key.topicId().equals(org.apache.kafka.common.Uuid.ZERO_UUID)) {
            return Outcome.failure(Errors.INVALID_REQUEST, "The topic id must be set.");
        }
        if (key.partition() < 0) {
            return Outcome.failure(Errors.INVALID_REQUEST, "The partition must not be negative.");
        }
        return null;
    }
}
