package io.varve.metadata.image;

import io.varve.metadata.record.PartitionChangeRecord;
import io.varve.metadata.record.PartitionRecord;
import java.util.Arrays;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/** The state of one partition. Immutable: arrays are copied in and out. */
public final class PartitionImage {

    private final int[] replicas;
    private final int[] isr;
    private final int leader;
    private final int leaderEpoch;
    private final int partitionEpoch;

    public PartitionImage(int[] replicas, int[] isr, int leader, int leaderEpoch, int partitionEpoch) {
        this.replicas = replicas.clone();
        this.isr = isr.clone();
        this.leader = leader;
        this.leaderEpoch = leaderEpoch;
        this.partitionEpoch = partitionEpoch;
    }

    static PartitionImage fromRecord(PartitionRecord record) {
        return new PartitionImage(
                record.replicas(), record.isr(), record.leader(), record.leaderEpoch(), record.partitionEpoch());
    }

    PartitionRecord toRecord(Uuid topicId, int partitionId) {
        return new PartitionRecord(topicId, partitionId, replicas, isr, leader, leaderEpoch, partitionEpoch);
    }

    /**
     * This partition after the change: the partition epoch always goes up by one, the leader epoch
     * when the change names a leader.
     *
     * @throws IllegalStateException if the result breaks an invariant (ISR outside the replicas,
     *                               a leader outside the ISR)
     */
    PartitionImage withChange(PartitionChangeRecord change) {
        int[] nextReplicas = change.replicas() == null ? replicas : change.replicas();
        int[] nextIsr = change.isr() == null ? isr : change.isr();
        int nextLeader = change.changesLeader() ? change.leader() : leader;
        int nextLeaderEpoch = change.changesLeader() ? leaderEpoch + 1 : leaderEpoch;
        for (int member : nextIsr) {
            if (!contains(nextReplicas, member)) {
                throw new IllegalStateException("ISR " + Arrays.toString(nextIsr) + " has " + member
                        + " outside the replicas " + Arrays.toString(nextReplicas) + ": " + change);
            }
        }
        if (nextLeader != PartitionChangeRecord.NO_LEADER && !contains(nextIsr, nextLeader)) {
            throw new IllegalStateException(
                    "leader " + nextLeader + " is not in the ISR " + Arrays.toString(nextIsr) + ": " + change);
        }
        return new PartitionImage(nextReplicas, nextIsr, nextLeader, nextLeaderEpoch, partitionEpoch + 1);
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

    public boolean hasReplica(int brokerId) {
        return contains(replicas, brokerId);
    }

    public boolean isInIsr(int brokerId) {
        return contains(isr, brokerId);
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
                && partitionEpoch == that.partitionEpoch;
    }

    @Override
    public int hashCode() {
        return Objects.hash(Arrays.hashCode(replicas), Arrays.hashCode(isr), leader, leaderEpoch, partitionEpoch);
    }

    @Override
    public String toString() {
        return "PartitionImage(replicas=" + Arrays.toString(replicas) + ", isr=" + Arrays.toString(isr) + ", leader="
                + leader + ", leaderEpoch=" + leaderEpoch + ", partitionEpoch=" + partitionEpoch + ")";
    }
}
