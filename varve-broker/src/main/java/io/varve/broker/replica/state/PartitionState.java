package io.varve.broker.replica.state;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The replication state of one partition on this broker, pure: no I/O, no threads, no clock (times are passed in).
 * The owner ({@code Partition}) holds it under the partition's lock and acts on what its methods return.
 *
 * <p>Roles and transitions:
 *
 * <pre>
 *   (new) --becomeLeader--> LEADER      (new) --becomeFollower--> FOLLOWER
 *   LEADER --becomeFollower--> FOLLOWER  FOLLOWER --becomeLeader--> LEADER
 *   either role --becomeX with a newer leader epoch--> X at that epoch (followers' state starts over)
 * </pre>
 *
 * <p>Leader rules (Kafka's {@code Partition} is the reference): the high watermark is the smallest log end offset of
 * the maximal ISR (the committed ISR together with the members of an ISR change in flight), and never goes back. A
 * follower joins the ISR once its log end offset reaches both the high watermark and the offset this leader epoch
 * started at; it leaves when it has not been caught up for longer than the lag limit. Only one ISR change is in flight
 * at a time; its outcome arrives with {@link #isrChangeCommitted} or {@link #isrChangeFailed}.
 */
public final class PartitionState {
    /** A follower's log end offset before its first fetch in this leader epoch. */
    public static final long UNKNOWN_OFFSET = -1L;

    public enum Role {
        LEADER,
        FOLLOWER
    }

    /** What the leader knows of one follower. */
    public record FollowerState(
            long logEndOffset, long lastFetchTimeMs, long lastFetchLeaderLogEndOffset, long lastCaughtUpTimeMs) {}

    /** An ISR change the leader should send to the controller. */
    public record IsrChange(int leaderEpoch, int partitionEpoch, Set<Integer> newIsr) {}

    /** The outcome of an event on the leader: whether the high watermark moved and an ISR change to send. */
    public record Outcome(boolean highWatermarkMoved, Optional<IsrChange> isrChange) {
        static final Outcome NOTHING = new Outcome(false, Optional.empty());
        static final Outcome MOVED = new Outcome(true, Optional.empty());

        static Outcome of(boolean highWatermarkMoved) {
            return highWatermarkMoved ? MOVED : NOTHING;
        }
    }

    private final int localId;
    private Role role;
    private int leaderId;
    private int leaderEpoch;
    private int partitionEpoch;
    private int[] replicas;
    private Set<Integer> isr;
    /** The ISR of the change in flight, or null when none is. */
    private Set<Integer> pendingIsr;

    private long localLogEndOffset;
    private long highWatermark;
    /** The log end offset when this broker became leader at {@link #leaderEpoch}. */
    private long leaderEpochStartOffset;

    private final Map<Integer, FollowerState> followers = new HashMap<>();

    private PartitionState(int localId) {
        this.localId = localId;
    }

    /** A partition this broker starts to lead (or follow) with the state of its log. */
    public static PartitionState create(int localId) {
        return new PartitionState(localId);
    }

    /**
     * This broker leads at {@code leaderEpoch}. Followers in the ISR count as caught up now (they were in sync with
     * the previous leader); their log end offsets are unknown until they fetch, so the high watermark waits for them.
     */
    public void becomeLeader(
            int leaderEpoch,
            int partitionEpoch,
            int[] replicas,
            Set<Integer> isr,
            long localLogEndOffset,
            long highWatermark,
            long nowMs) {
        check(isr.contains(localId), "a leader must be in its ISR");
        boolean newEpoch = role != Role.LEADER || leaderEpoch != this.leaderEpoch;
        this.role = Role.LEADER;
        this.leaderId = localId;
        this.leaderEpoch = leaderEpoch;
        this.partitionEpoch = partitionEpoch;
        this.replicas = replicas.clone();
        this.isr = new TreeSet<>(isr);
        this.pendingIsr = null;
        this.localLogEndOffset = localLogEndOffset;
        this.highWatermark = Math.min(highWatermark, localLogEndOffset);
        if (newEpoch) {
            this.leaderEpochStartOffset = localLogEndOffset;
            followers.clear();
        }
        for (int id : replicas) {
            if (id != localId) {
                followers.computeIfAbsent(
                        id, r -> new FollowerState(UNKNOWN_OFFSET, 0, UNKNOWN_OFFSET, isr.contains(r) ? nowMs : 0));
            }
        }
        followers.keySet().retainAll(replicaSet());
    }

    /** This broker follows {@code leaderId} at {@code leaderEpoch}. */
    public void becomeFollower(
            int leaderId,
            int leaderEpoch,
            int partitionEpoch,
            int[] replicas,
            Set<Integer> isr,
            long localLogEndOffset,
            long highWatermark) {
        this.role = Role.FOLLOWER;
        this.leaderId = leaderId;
        this.leaderEpoch = leaderEpoch;
        this.partitionEpoch = partitionEpoch;
        this.replicas = replicas.clone();
        this.isr = new TreeSet<>(isr);
        this.pendingIsr = null;
        this.localLogEndOffset = localLogEndOffset;
        this.highWatermark = Math.min(highWatermark, localLogEndOffset);
        this.leaderEpochStartOffset = UNKNOWN_OFFSET;
        followers.clear();
    }

    /**
     * The controller's image of the partition at the same leader epoch (an ISR change of this leader, or one the
     * controller made, as when a follower's broker was fenced): adopted when its partition epoch is newer.
     */
    public Outcome imageUpdated(int partitionEpoch, int[] replicas, Set<Integer> isr, long nowMs) {
        if (partitionEpoch <= this.partitionEpoch) {
            return Outcome.NOTHING;
        }
        this.partitionEpoch = partitionEpoch;
        this.replicas = replicas.clone();
        for (int id : replicas) {
            if (id != localId && role == Role.LEADER) {
                followers.computeIfAbsent(id, r -> new FollowerState(UNKNOWN_OFFSET, 0, UNKNOWN_OFFSET, 0));
            }
        }
        followers.keySet().retainAll(replicaSet());
        this.isr = new TreeSet<>(isr);
        this.pendingIsr = null;
        return role == Role.LEADER ? new Outcome(maybeIncrementHighWatermark(), Optional.empty()) : Outcome.NOTHING;
    }

    /** The leader appended: its log end offset is now {@code logEndOffset}. */
    public Outcome leaderAppended(long logEndOffset) {
        requireLeader();
        localLogEndOffset = logEndOffset;
        return Outcome.of(maybeIncrementHighWatermark()); // per append: nothing allocated
    }

    /**
     * A follower fetched from {@code fetchOffset} (so it holds everything below it) at {@code nowMs}, when the
     * leader's log ended at {@code leaderLogEndOffset}. It is caught up when it asked for the leader's end, or for
     * the end of the leader at its previous fetch (then it was caught up at that fetch's time).
     */
    public Outcome followerFetched(int replicaId, long fetchOffset, long leaderLogEndOffset, long nowMs) {
        requireLeader();
        FollowerState before = followers.get(replicaId);
        check(before != null, "replica " + replicaId + " is not a follower of this partition");
        long caughtUp = before.lastCaughtUpTimeMs();
        if (fetchOffset >= leaderLogEndOffset) {
            caughtUp = Math.max(caughtUp, nowMs);
        } else if (fetchOffset >= before.lastFetchLeaderLogEndOffset()) {
            caughtUp = Math.max(caughtUp, before.lastFetchTimeMs());
        }
        followers.put(replicaId, new FollowerState(fetchOffset, nowMs, leaderLogEndOffset, caughtUp));
        boolean moved = maybeIncrementHighWatermark();
        Optional<IsrChange> change = Optional.empty();
        if (pendingIsr == null
                && !isr.contains(replicaId)
                && fetchOffset >= highWatermark
                && fetchOffset >= leaderEpochStartOffset) {
            Set<Integer> expanded = new TreeSet<>(isr);
            expanded.add(replicaId);
            change = Optional.of(propose(expanded));
        }
        return new Outcome(moved, change);
    }

    /** The followers of the ISR not caught up within {@code lagMaxMs} leave it (one change in flight at a time). */
    public Optional<IsrChange> maybeShrinkIsr(long nowMs, long lagMaxMs) {
        if (role != Role.LEADER || pendingIsr != null) {
            return Optional.empty();
        }
        Set<Integer> shrunk = new TreeSet<>(isr);
        shrunk.removeIf(id -> id != localId && nowMs - followers.get(id).lastCaughtUpTimeMs() > lagMaxMs);
        return shrunk.size() == isr.size() ? Optional.empty() : Optional.of(propose(shrunk));
    }

    private IsrChange propose(Set<Integer> newIsr) {
        pendingIsr = newIsr;
        return new IsrChange(leaderEpoch, partitionEpoch, Set.copyOf(newIsr));
    }

    /** The controller committed an ISR change (ours, answered with the new partition epoch). */
    public Outcome isrChangeCommitted(int leaderEpoch, int partitionEpoch, Set<Integer> newIsr) {
        if (role != Role.LEADER || leaderEpoch != this.leaderEpoch || partitionEpoch <= this.partitionEpoch) {
            return Outcome.NOTHING;
        }
        this.partitionEpoch = partitionEpoch;
        this.isr = new TreeSet<>(newIsr);
        this.pendingIsr = null;
        return new Outcome(maybeIncrementHighWatermark(), Optional.empty());
    }

    /**
     * The change in flight was refused or lost: the committed ISR stands, the next event may propose again. A failed
     * expansion no longer holds the high watermark back for the member it would have added.
     */
    public Outcome isrChangeFailed() {
        pendingIsr = null;
        return role == Role.LEADER ? new Outcome(maybeIncrementHighWatermark(), Optional.empty()) : Outcome.NOTHING;
    }

    /** A follower appended what it fetched, or truncated: its end and the leader's high watermark as last seen. */
    public void followerLogUpdated(long logEndOffset, long leaderHighWatermark) {
        check(role == Role.FOLLOWER, "only a follower takes its high watermark from the leader");
        localLogEndOffset = logEndOffset;
        highWatermark = Math.min(leaderHighWatermark, logEndOffset);
    }

    private boolean maybeIncrementHighWatermark() {
        // the maximal ISR without building it: a member of both sets counts twice, which min() does not mind
        long candidate = minFollowerEnd(isr, localLogEndOffset);
        if (pendingIsr != null) {
            candidate = minFollowerEnd(pendingIsr, candidate);
        }
        if (candidate > highWatermark) {
            highWatermark = candidate;
            return true;
        }
        return false;
    }

    private long minFollowerEnd(Set<Integer> members, long candidate) {
        for (int id : members) {
            if (id != localId) {
                candidate = Math.min(candidate, followers.get(id).logEndOffset());
            }
        }
        return candidate;
    }

    /** The size of {@link #maximalIsr()}, without building it (asked on every append and commit). */
    public int maximalIsrSize() {
        if (pendingIsr == null) {
            return isr.size();
        }
        int n = isr.size();
        for (int id : pendingIsr) {
            if (!isr.contains(id)) {
                n++;
            }
        }
        return n;
    }

    /** The size of {@link #isr()}, without copying it. */
    public int isrSize() {
        return isr.size();
    }

    /** The committed ISR and the members of a change in flight: all of them must have what counts as committed. */
    public Set<Integer> maximalIsr() {
        if (pendingIsr == null) {
            return Set.copyOf(isr);
        }
        Set<Integer> union = new TreeSet<>(isr);
        union.addAll(pendingIsr);
        return union;
    }

    private Set<Integer> replicaSet() {
        Set<Integer> set = new TreeSet<>();
        for (int r : replicas) {
            set.add(r);
        }
        return set;
    }

    private void requireLeader() {
        check(role == Role.LEADER, "this broker does not lead the partition");
    }

    private static void check(boolean condition, String why) {
        if (!condition) {
            throw new IllegalStateException(why);
        }
    }

    public Role role() {
        return role;
    }

    public boolean isLeader() {
        return role == Role.LEADER;
    }

    public int leaderId() {
        return leaderId;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    public int partitionEpoch() {
        return partitionEpoch;
    }

    public int[] replicas() {
        return replicas.clone();
    }

    public boolean isReplica(int id) {
        return Arrays.stream(replicas).anyMatch(r -> r == id);
    }

    /** The committed ISR. */
    public Set<Integer> isr() {
        return Set.copyOf(isr);
    }

    public boolean isrChangeInFlight() {
        return pendingIsr != null;
    }

    public long highWatermark() {
        return highWatermark;
    }

    public long localLogEndOffset() {
        return localLogEndOffset;
    }

    public long leaderEpochStartOffset() {
        return leaderEpochStartOffset;
    }

    /**
     * False while a new leader's high watermark is below the offset its epoch started at: it may be lower than the
     * previous leader's, so offsets read from it are not answered (OFFSET_NOT_AVAILABLE) until it catches up.
     */
    public boolean highWatermarkKnown() {
        return role != Role.LEADER || highWatermark >= leaderEpochStartOffset;
    }

    public Optional<FollowerState> follower(int id) {
        return Optional.ofNullable(followers.get(id));
    }
}
