package io.varve.metadata.record;

import java.util.Arrays;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * The full state of one partition; replaces any earlier state of it. Arrays are copied in and out,
 * so the record stays immutable.
 *
 * <p>Version 1 adds the replicas of a reassignment in progress ({@code addingReplicas}, {@code
 * removingReplicas}, both within {@code replicas}) and KIP-966's eligible leader replicas ({@code elr}:
 * replicas outside the ISR known to hold every committed record) and last known ELR. Version 0 records
 * read as having none of them.
 */
public record PartitionRecord(
        Uuid topicId,
        int partitionId,
        int[] replicas,
        int[] isr,
        int leader,
        int leaderEpoch,
        int partitionEpoch,
        int[] addingReplicas,
        int[] removingReplicas,
        int[] elr,
        int[] lastKnownElr)
        implements MetadataRecord {

    private static final int[] NONE = new int[0];

    public PartitionRecord {
        Objects.requireNonNull(topicId, "topicId");
        if (partitionId < 0) {
            throw new IllegalArgumentException("partitionId must be >= 0: " + partitionId);
        }
        replicas = Objects.requireNonNull(replicas, "replicas").clone();
        isr = Objects.requireNonNull(isr, "isr").clone();
        addingReplicas =
                Objects.requireNonNull(addingReplicas, "addingReplicas").clone();
        removingReplicas =
                Objects.requireNonNull(removingReplicas, "removingReplicas").clone();
        elr = Objects.requireNonNull(elr, "elr").clone();
        lastKnownElr = Objects.requireNonNull(lastKnownElr, "lastKnownElr").clone();
    }

    /** A partition without a reassignment in progress and without eligible leader replicas. */
    public PartitionRecord(
            Uuid topicId, int partitionId, int[] replicas, int[] isr, int leader, int leaderEpoch, int partitionEpoch) {
        this(topicId, partitionId, replicas, isr, leader, leaderEpoch, partitionEpoch, NONE, NONE, NONE, NONE);
    }

    /** True if the record needs version 1 of the layout (it carries a reassignment or ELR state). */
    public boolean hasVersion1Fields() {
        return addingReplicas.length > 0 || removingReplicas.length > 0 || elr.length > 0 || lastKnownElr.length > 0;
    }

    @Override
    public int[] replicas() {
        return replicas.clone();
    }

    @Override
    public int[] isr() {
        return isr.clone();
    }

    @Override
    public int[] addingReplicas() {
        return addingReplicas.clone();
    }

    @Override
    public int[] removingReplicas() {
        return removingReplicas.clone();
    }

    @Override
    public int[] elr() {
        return elr.clone();
    }

    @Override
    public int[] lastKnownElr() {
        return lastKnownElr.clone();
    }

    @Override
    public MetadataRecordType type() {
        return MetadataRecordType.PARTITION;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionRecord that
                && topicId.equals(that.topicId)
                && partitionId == that.partitionId
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
                topicId,
                partitionId,
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
        return "PartitionRecord(topicId=" + topicId + ", partitionId=" + partitionId + ", replicas="
                + Arrays.toString(replicas) + ", isr=" + Arrays.toString(isr) + ", leader=" + leader
                + ", leaderEpoch=" + leaderEpoch + ", partitionEpoch=" + partitionEpoch + ", adding="
                + Arrays.toString(addingReplicas) + ", removing=" + Arrays.toString(removingReplicas) + ", elr="
                + Arrays.toString(elr) + ", lastKnownElr=" + Arrays.toString(lastKnownElr) + ")";
    }
}
