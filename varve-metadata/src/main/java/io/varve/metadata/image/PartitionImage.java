package io.varve.metadata.image;

import io.varve.metadata.record.PartitionChangeRecord;
import io.varve.metadata.record.PartitionRecord;
import java.util.Arrays;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * The state of one partition. Immutable: arrays are copied in and out.
 *
 * <p>Besides replicas, ISR and leader it holds a reassignment in progress as Kafka's controller keeps
 * it ({@code replicas} is the union of the old and the target set; {@code addingReplicas} are the
 * target's new ones, {@code removingReplicas} the old ones leaving) and KIP-966's eligible leader
 * replicas: members that left the ISR while it was below {@code min.insync.replicas}, so they still
 * hold every committed record and may be elected cleanly; {@code lastKnownElr} are the ones last
 * known to have been such, kept only as a hint for an unclean election.
 */
public final class PartitionImage {

    private static final int[] NONE = new int[0];

    private final int[] replicas;
    private final int[] isr;
    private final int leader;
    private final int leaderEpoch;
    private final int partitionEpoch;
    private final int[] addingReplicas;
    private final int[] removingReplicas;
    private final int[] elr;
    private final int[] lastKnownElr;

    public PartitionImage(int[] replicas, int[] isr, int leader, int leaderEpoch, int partitionEpoch) {
        this(replicas, isr, leader, leaderEpoch, partitionEpoch, NONE, NONE, NONE, NONE);
    }

    public PartitionImage(
            int[] replicas,
            int[] isr,
            int leader,
            int leaderEpoch,
            int partitionEpoch,
            int[] addingReplicas,
            int[] removingReplicas,
            int[] elr,
            int[] lastKnownElr) {
        this.replicas = replicas.clone();
        this.isr = isr.clone();
        this.leader = leader;
        this.leaderEpoch = leaderEpoch;
        this.partitionEpoch = partitionEpoch;
        this.addingReplicas = addingReplicas.clone();
        this.removingReplicas = removingReplicas.clone();
        this.elr = elr.clone();
        this.lastKnownElr = lastKnownElr.clone();
    }

    static PartitionImage fromRecord(PartitionRecord record) {
        return new PartitionImage(
                record.replicas(),
                record.isr(),
                record.leader(),
                record.leaderEpoch(),
                record.partitionEpoch(),
                record.addingReplicas(),
                record.removingReplicas(),
                record.elr(),
                record.lastKnownElr());
    }

    PartitionRecord toRecord(Uuid topicId, int partitionId) {
        return new PartitionRecord(
                topicId,
                partitionId,
                replicas,
                isr,
                leader,
                leaderEpoch,
                partitionEpoch,
                addingReplicas,
                removingReplicas,
                elr,
                lastKnownElr);
    }

    /**
     * This partition after the change: the partition epoch always goes up by one, the leader epoch
     * when the change names a leader.
     *
     * @throws IllegalStateException if the result breaks an invariant (ISR, ELR, adding or removing
     *                               replicas outside the replicas, a leader outside the ISR, a member
     *                               both in the ISR and the ELR, a replica both added and removed)
     */
    public PartitionImage withChange(PartitionChangeRecord change) {
        int[] nextReplicas = orElse(change.replicas(), replicas);
        int[] nextIsr = orElse(change.isr(), isr);
        int[] nextAdding = orElse(change.addingReplicas(), addingReplicas);
        int[] nextRemoving = orElse(change.removingReplicas(), removingReplicas);
        int[] nextElr = orElse(change.elr(), elr);
        int[] nextLastKnownElr = orElse(change.lastKnownElr(), lastKnownElr);
        int nextLeader = change.changesLeader() ? change.leader() : leader;
        int nextLeaderEpoch = change.changesLeader() ? leaderEpoch + 1 : leaderEpoch;
        requireWithin("ISR", nextIsr, nextReplicas, change);
        requireWithin("ELR", nextElr, nextReplicas, change);
        requireWithin("adding replicas", nextAdding, nextReplicas, change);
        requireWithin("removing replicas", nextRemoving, nextReplicas, change);
        if (nextLeader != PartitionChangeRecord.NO_LEADER && !contains(nextIsr, nextLeader)) {
            throw new IllegalStateException(
                    "leader " + nextLeader + " is not in the ISR " + Arrays.toString(nextIsr) + ": " + change);
        }
        for (int member : nextElr) {
            if (contains(nextIsr, member)) {
                throw new IllegalStateException("replica " + member + " is both in the ISR and in the ELR: " + change);
            }
        }
        for (int adding : nextAdding) {
            if (contains(nextRemoving, adding)) {
                throw new IllegalStateException("replica " + adding + " is both added and removed: " + change);
            }
        }
        return new PartitionImage(
                nextReplicas,
                nextIsr,
                nextLeader,
                nextLeaderEpoch,
                partitionEpoch + 1,
                nextAdding,
                nextRemoving,
                nextElr,
                nextLastKnownElr);
    }

    private static int[] orElse(int[] changed, int[] current) {
        return changed == null ? current : changed;
    }

    private static void requireWithin(String what, int[] members, int[] replicas, PartitionChangeRecord change) {
        for (int member : members) {
            if (!contains(replicas, member)) {
                throw new IllegalStateException(what + " " + Arrays.toString(members) + " has " + member
                        + " outside the replicas " + Arrays.toString(replicas) + ": " + change);
            }
        }
    }

    private static boolean contains(int[] brokers, int brokerId) {
        for (int broker : brokers) {
            if (broker == brokerId) {
                return true;
            }
        }
        return false;
    }

    public int[] replicas() {
        return replicas.clone();
    }

    public int[] isr() {
        return isr.clone();
    }

    /** The leader's broker id, or -1 if the partition has no leader. */
    public int leader() {
        return leader;
    }

    public int leaderEpoch() {
        return leaderEpoch;
    }

    public int partitionEpoch() {
        return partitionEpoch;
    }

    /** Replicas a reassignment in progress adds (empty if none is in progress). */
    public int[] addingReplicas() {
        return addingReplicas.clone();
    }

    /** Replicas a reassignment in progress removes once the added ones are in the ISR. */
    public int[] removingReplicas() {
        return removingReplicas.clone();
    }

    /** Eligible leader replicas (KIP-966): outside the ISR, yet holding every committed record. */
    public int[] elr() {
        return elr.clone();
    }

    /** The last known eligible leader replicas: a hint for unclean elections only. */
    public int[] lastKnownElr() {
        return lastKnownElr.clone();
    }

    public boolean isReassigning() {
        return addingReplicas.length > 0 || removingReplicas.length > 0;
    }

    public boolean hasReplica(int brokerId) {
        return contains(replicas, brokerId);
    }

    public boolean isInIsr(int brokerId) {
        return contains(isr, brokerId);
    }

    public boolean isInElr(int brokerId) {
        return contains(elr, brokerId);
    }

    /** The preferred leader: the first replica. */
    public int preferredLeader() {
        return replicas.length == 0 ? -1 : replicas[0];
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionImage that
                && Arrays.equals(replicas, that.replicas)
                && Arrays.equals(isr, that.isr)
                && leader == that.leader
                && leaderEpoch == that.leaderEpoch
                && partitionEpoch == that.partitionEpoch
                && Arrays.equals(addingReplicas, that.addingReplicas)
                && Arrays.equals(removingReplicas, that.removingReplicas)
                && Arrays.equals(elr, that.elr)
                && Arrays.equals(lastKnownElr, that.lastKnownElr);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                Arrays.hashCode(replicas),
                Arrays.hashCode(isr),
                leader,
                leaderEpoch,
                partitionEpoch,
                Arrays.hashCode(addingReplicas),
                Arrays.hashCode(removingReplicas),
                Arrays.hashCode(elr),
                Arrays.hashCode(lastKnownElr));
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("PartitionImage(replicas=")
                .append(Arrays.toString(replicas))
                .append(", isr=")
                .append(Arrays.toString(isr))
                .append(", leader=")
                .append(leader)
                .append(", leaderEpoch=")
                .append(leaderEpoch)
                .append(", partitionEpoch=")
                .append(partitionEpoch);
        if (isReassigning()) {
            s.append(", adding=").append(Arrays.toString(addingReplicas));
            s.append(", removing=").append(Arrays.toString(removingReplicas));
        }
        if (elr.length > 0 || lastKnownElr.length > 0) {
            s.append(", elr=").append(Arrays.toString(elr));
            s.append(", lastKnownElr=").append(Arrays.toString(lastKnownElr));
        }
        return s.append(")").toString();
    }
}
