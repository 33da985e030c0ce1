package io.varve.coordinator.group.streams;

import io.varve.coordinator.group.record.StreamsGroupValue.TopicInfo;
import java.util.List;
import java.util.Map;

/**
 * A topology resolved against the cluster's topics at one moment.
 *
 * @param numTasks         tasks per subtopology; empty unless {@link #ready()}
 * @param sourceTopics     per subtopology, the source topics (regexes resolved) and repartition source topics
 * @param statuses         what the heartbeat reports about the group (missing topics, wrong partition counts)
 * @param topicsToCreate   internal topics that do not exist yet, with the partitions they must have
 * @param metadataHash     digest of the topics involved: a change means the assignment must be recomputed
 */
public record ConfiguredTopology(
        Map<String, Integer> numTasks,
        Map<String, List<String>> sourceTopics,
        List<StreamsApi.Status> statuses,
        List<TopicInfo> topicsToCreate,
        long metadataHash) {
    public static final ConfiguredTopology NONE = new ConfiguredTopology(Map.of(), Map.of(), List.of(), List.of(), 0);

    public ConfiguredTopology {
        numTasks = Map.copyOf(numTasks);
        sourceTopics = Map.copyOf(sourceTopics);
        statuses = List.copyOf(statuses);
        topicsToCreate = List.copyOf(topicsToCreate);
    }

    /** Every source and internal topic exists with the right partitions: tasks can be assigned. */
    public boolean ready() {
        return !numTasks.isEmpty();
    }
}
