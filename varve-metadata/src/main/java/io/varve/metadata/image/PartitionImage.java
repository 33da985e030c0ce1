package io.varve.metadata.image;

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
        for (int replica : replicas) {
            if (replica == brokerId) {
                return true;
            }
        }
        return false;
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
