package io.varve.metadata.controller;

import java.util.List;

/**
 * One topic of a CreatePartitions request.
 *
 * @param count       the new total number of partitions
 * @param assignments replicas of each new partition in order, or null for automatic placement
 */
public record CreatePartitionsRequest(String name, int count, List<List<Integer>> assignments) {

    public CreatePartitionsRequest {
        assignments = assignments == null
                ? null
                : assignments.stream()
                        .map(replicas -> replicas == null ? null : List.copyOf(replicas))
                        .toList();
    }

    public static CreatePartitionsRequest increaseTo(String name, int count) {
        return new CreatePartitionsRequest(name, count, null);
    }
}
