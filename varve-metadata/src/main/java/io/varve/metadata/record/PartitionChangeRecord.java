package io.varve.metadata.record;

import java.util.Arrays;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A change of one existing partition: a new ISR, a new leader, new replicas, or several of these.
 * Replaying it raises the partition epoch by one, and the leader epoch by one when {@code leader}
 * is set (even to the current leader: that is how a change forces followers onto a new epoch).
 *
 * @param isr      the new ISR, or null if unchanged
 * @param leader   the new leader, {@link #NO_LEADER} for none, or {@link #NO_LEADER_CHANGE}
 * @param replicas the new replicas, or null if unchanged
 */
public record PartitionChangeRecord(Uuid topicId, int partitionId, int[] isr, int leader, int[] replicas)
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
        isr = isr == null ? null : isr.clone();
        replicas = replicas == null ? null : replicas.clone();
        if (isr == null && replicas == null && leader == NO_LEADER_CHANGE) {
            throw new IllegalArgumentException("a partition change must change something");
        }
    }

    @Override
    public int[] isr() {
        return isr == null ? null : isr.clone();
    }

    @Override
    public int[] replicas() {
        return replicas == null ? null : replicas.clone();
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
                && Arrays.equals(replicas, that.replicas);
    }

    @Override
    public int hashCode() {
        return Objects.hash(topicId, partitionId, Arrays.hashCode(isr), leader, Arrays.hashCode(replicas));
    }

    @Override
    public String toString() {
        return "PartitionChangeRecord(topicId=" + topicId + ", partitionId=" + partitionId + ", isr="
                + (isr == null ? "unchanged" : Arrays.toString(isr)) + ", leader="
                + (leader == NO_LEADER_CHANGE ? "unchanged" : Integer.toString(leader)) + ", replicas="
                + (replicas == null ? "unchanged" : Arrays.toString(replicas)) + ")";
    }
}
