package io.varve.broker.metadata;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * The broker's read-only view of one metadata image, shaped for request handlers.
 * Built once per image; handlers take the current snapshot and never lock. The dynamic broker configs are this
 * node's ({@code dynamicBrokerConfigs}) and the cluster-wide defaults ({@code dynamicDefaultBrokerConfigs}).
 */
public record MetadataSnapshot(
        long offset,
        Map<String, TopicInfo> topicsByName,
        Map<Uuid, TopicInfo> topicsById,
        List<BrokerInfo> brokers,
        Map<String, String> dynamicBrokerConfigs,
        Map<String, String> dynamicDefaultBrokerConfigs) {

    public static final MetadataSnapshot EMPTY =
            new MetadataSnapshot(-1, Map.of(), Map.of(), List.of(), Map.of(), Map.of());

    public record PartitionInfo(
            int partition, int leader, int leaderEpoch, int[] replicas, int[] isr, int partitionEpoch) {}

    /** The topics only the coordinators write, as Kafka marks them internal (clients cannot produce to them). */
    public static final java.util.Set<String> INTERNAL_TOPICS =
            java.util.Set.of("__consumer_offsets", "__transaction_state", "__share_group_state");

    public record TopicInfo(String name, Uuid id, Map<Integer, PartitionInfo> partitions, Map<String, String> configs) {
        public boolean isInternal() {
            return INTERNAL_TOPICS.contains(name);
        }
    }

    public record Endpoint(String listenerName, String host, int port) {}

    public record BrokerInfo(int nodeId, String rack, List<Endpoint> endpoints) {
        public Optional<Endpoint> endpoint(String listenerName) {
            return endpoints.stream()
                    .filter(e -> e.listenerName().equals(listenerName))
                    .findFirst();
        }
    }

    public Optional<TopicInfo> topic(String name) {
        return Optional.ofNullable(topicsByName.get(name));
    }

    public Optional<TopicInfo> topic(Uuid id) {
        return Optional.ofNullable(topicsById.get(id));
    }

    public Collection<TopicInfo> topics() {
        return topicsByName.values();
    }
}
