package io.varve.metadata.record;

import java.util.Arrays;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A change of one existing partition: a new ISR, a new leader, new replicas, or several of these.
 * Replaying it raises the partition epoch by one, and the leader epoch by one when {@code leader}
 * is set (even to the current leader: that is how a change forces followers onto a new epoch).
 *
 * <p>Version 1 adds, each null if unchanged: the adding and removing replicas of a reassignment, the
 * eligible leader replicas (KIP-966) and the last known ELR. Version 0 records leave them unchanged.
 *
 * @param isr      the new ISR, or null if unchanged
 * @param leader   the new leader, {@link #NO_LEADER} for none, or {@link #NO_LEADER_CHANGE}
 * @param replicas the new replicas, or null if unchanged
 */
public record PartitionChangeRecord(
        Uuid topicId,
        int partitionId,
        int[] isr,
        int leader,
        int[] replicas,
        int[] addingReplicas,
        int[] removingReplicas,
        int[] elr,
        int[] lastKnownElr)
        implements MetadataRecord {

    public static final int NO_LEADER = -1;
    public static final int NO_LEADER_CHANGE = -2;

    public PartitionChangeRecord {
        Objects.requireNonNull(topicId, "topicId");
        if (partitionId < 0) {
            throw new IllegalArgumentException("partitionId must be >= 0: " + partitionId);
        }
        if (leader < NO_LEADER_CHANGE) {
            throw new IllegalArgumentException("invalid leader " + leader);
        }
        isr = copy(isr);
        replicas = copy(replicas);
        addingReplicas = copy(addingReplicas);
        removingReplicas = copy(removingReplicas);
        elr = copy(elr);
        lastKnownElr = copy(lastKnownElr);
        if (isr == null
                && replicas == null
                && leader == NO_LEADER_CHANGE
                && addingReplicas == null
                && removingReplicas == null
                && elr == null
                && lastKnownElr == null) {
            throw new IllegalArgumentException("a partition change must change something");
        }
    }

    /** A change of ISR, leader or replicas only (the version 0 fields). */
    public PartitionChangeRecord(Uuid topicId, int partitionId, int[] isr, int leader, int[] replicas) {
        this(topicId, partitionId, isr, leader, replicas, null, null, null, null);
    }

    private static int[] copy(int[] brokers) {
        return brokers == null ? null : brokers.clone();
    }

    /** True if the record needs version 1 of the layout (it changes a reassignment or ELR field). */
    public boolean hasVersion1Fields() {
        return addingReplicas != null || removingReplicas != null || elr != null || lastKnownElr != null;
    }

    @Override
    public int[] isr() {
        return copy(isr);
    }

    @Override
    public int[] replicas() {
        return copy(replicas);
    }

    @Override
    public int[] addingReplicas() {
        return copy(addingReplicas);
    }

    @Override
    public int[] removingReplicas() {
        return copy(removingReplicas);
    }

    @Override
    public int[] elr() {
        return copy(elr);
    }

    @Override
    public int[] lastKnownElr() {
        return copy(lastKnownElr);
    }

    public boolean changesLeader() {
        return leader != NO_LEADER_CHANGE;
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.PARTITION_CHANGE;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionChangeRecord that
                && topicId.equals(that.topicId)
                && partitionId == that.partitionId
                && Arrays.equals(isr, that.isr)
                && leader == that.leader
                && Arrays.equals(replicas, that.replicas)
                && Arrays.equals(addingReplicas, that.addingReplicas)
                && Arrays.equals(removingReplicas, that.removingReplicas)
                && Arrays.equals(elr, that.elr)
                && Arrays.equals(lastKnownElr, that.lastKnownElr);
    }

    @Override
    public int hashCode() {
        return Objects.hash(
                topicId,
                partitionId,
                Arrays.hashCode(isr),
                leader,
                Arrays.hashCode(replicas),
                Arrays.hashCode(addingReplicas),
                Arrays.hashCode(removingReplicas),
                Arrays.hashCode(elr),
                Arrays.hashCode(lastKnownElr));
    }

    @Override
    public String toString() {
        return "PartitionChangeRecord(topicId=" + topicId + ", partitionId=" + partitionId + ", isr="
                + shown(isr) + ", leader="
                + (leader == NO_LEADER_CHANGE ? "unchanged" : Integer.toString(leader)) + ", replicas="
                + shown(replicas) + ", adding=" + shown(addingReplicas) + ", removing=" + shown(removingReplicas)
                + ", elr=" + shown(elr) + ", lastKnownElr=" + shown(lastKnownElr) + ")";
    }

    private static String shown(int[] brokers) {
        return brokers == null ? "unchanged" : Arrays.toString(brokers);
    }
}
