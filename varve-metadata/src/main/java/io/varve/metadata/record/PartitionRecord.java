package io.varve.metadata.record;

import java.util.Arrays;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * The full state of one partition; replaces any earlier state of it. Arrays are copied in and out,
 * so the record stays immutable.
 */
public record PartitionRecord(
        Uuid topicId, int partitionId, int[] replicas, int[] isr, int leader, int leaderEpoch, int partitionEpoch)
        implements MetadataRecord {

    public PartitionRecord {
        Objects.requireNonNull(topicId, "topicId");
        if (partitionId < 0) {
            throw new IllegalArgumentException("partitionId must be >= 0: " + partitionId);
        }
        replicas = Objects.requireNonNull(replicas, "replicas").clone();
        isr = Objects.requireNonNull(isr, "isr").clone();
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
                && partitionEpoch == that.partitionEpoch;
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
                partitionEpoch);
    }

    @Override
    public String toString() {
        return "PartitionRecord(topicId=" + topicId + ", partitionId=" + partitionId + ", replicas="
                + Arrays.toString(replicas) + ", isr=" + Arrays.toString(isr) + ", leader=" + leader
                + ", leaderEpoch=" + leaderEpoch + ", partitionEpoch=" + partitionEpoch + ")";
    }
}
