package io.varve.metadata.controller.replication;

import java.util.List;

/** A reassignment in progress, as ListPartitionReassignments reports it. */
public record OngoingReassignment(
        String topic,
        int partitionId,
        List<Integer> replicas,
        List<Integer> addingReplicas,
        List<Integer> removingReplicas) {

    public OngoingReassignment {
        replicas = List.copyOf(replicas);
        addingReplicas = List.copyOf(addingReplicas);
        removingReplicas = List.copyOf(removingReplicas);
    }
}
