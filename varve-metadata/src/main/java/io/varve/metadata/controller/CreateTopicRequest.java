package io.varve.metadata.controller;

import java.util.List;
import java.util.Map;

/**
 * One topic of a CreateTopics request.
 *
 * @param numPartitions     -1 for the default
 * @param replicationFactor -1 for the default
 * @param assignments       manual placement, partition id to replica broker ids; empty for automatic
 * @param configs           topic-level config overrides
 */
public record CreateTopicRequest(
        String name,
        int numPartitions,
        short replicationFactor,
        Map<Integer, List<Integer>> assignments,
        Map<String, String> configs) {

    public CreateTopicRequest {
        assignments = assignments == null ? Map.of() : assignments;
        configs = configs == null ? Map.of() : configs;
    }

    /** A topic with default partitions, replication and configs. */
    public static CreateTopicRequest withDefaults(String name) {
        return new CreateTopicRequest(name, -1, (short) -1, Map.of(), Map.of());
    }
}
