package io.varve.metadata.controller.replication;

import java.util.Objects;
import org.apache.kafka.common.protocol.Errors;

/** The outcome of a per-partition admin request (reassignment, election): an error code and its message. */
public record PartitionResultError(String topic, int partitionId, Errors error, String message) {

    public PartitionResultError {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(error, "error");
    }

    static PartitionResultError ok(String topic, int partitionId) {
        return new PartitionResultError(topic, partitionId, Errors.NONE, null);
    }
}
