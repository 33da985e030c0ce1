package io.varve.metadata.controller.replication;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * An AlterPartition request from a partition leader: the ISR it wants for each of its partitions,
 * quoting the leader and partition epochs it last saw.
 */
public record AlterPartitionRequest(int brokerId, long brokerEpoch, List<PartitionIsr> partitions) {

    public AlterPartitionRequest {
        partitions = List.copyOf(partitions);
    }

    /** The new ISR of one partition. */
    public record PartitionIsr(
            Uuid topicId, int partitionId, int leaderEpoch, List<IsrMember> newIsr, int partitionEpoch) {

        public PartitionIsr {
            Objects.requireNonNull(topicId, "topicId");
            newIsr = List.copyOf(newIsr);
        }
    }

    /**
     * One proposed ISR member; {@code brokerEpoch} is the epoch the leader saw it fetch with, or -1
     * when unknown (AlterPartition before version 3).
     */
    public record IsrMember(int brokerId, long brokerEpoch) {

        public static IsrMember of(int brokerId) {
            return new IsrMember(brokerId, -1);
        }
    }
}
