package io.varve.metadata.controller.replication;

import java.util.List;
import java.util.Objects;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The answer to an {@link AlterPartitionRequest}: a request-level error (STALE_BROKER_EPOCH), or one
 * result per requested partition, in order.
 */
public record AlterPartitionReply(Errors error, List<PartitionResult> partitions) {

    public AlterPartitionReply {
        Objects.requireNonNull(error, "error");
        partitions = List.copyOf(partitions);
    }

    /** The partition's state after the request (on success, or on most errors the current state). */
    public record PartitionResult(
            Uuid topicId,
            int partitionId,
            Errors error,
            int leader,
            int leaderEpoch,
            List<Integer> isr,
            int partitionEpoch) {

        public PartitionResult {
            Objects.requireNonNull(error, "error");
            isr = List.copyOf(isr);
        }

        static PartitionResult failure(Uuid topicId, int partitionId, Errors error) {
            return new PartitionResult(topicId, partitionId, error, -1, -1, List.of(), -1);
        }
    }
}
