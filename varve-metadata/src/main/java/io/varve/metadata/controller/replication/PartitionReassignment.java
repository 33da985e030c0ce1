package io.varve.metadata.controller.replication;

import java.util.List;
import java.util.Objects;

/**
 * One partition of an AlterPartitionReassignments request: its target replicas, or null to cancel the
 * reassignment in progress.
 */
public record PartitionReassignment(String topic, int partitionId, List<Integer> targetReplicas) {

    public PartitionReassignment {
        Objects.requireNonNull(topic, "topic");
        targetReplicas = targetReplicas == null
                ? null
                : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(targetReplicas));
    }

    public boolean cancels() {
        return targetReplicas == null;
    }
}
