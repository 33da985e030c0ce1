package io.varve.http.view;

/**
 * What this node knows of the cluster from its metadata image.
 *
 * @param activeController   whether this node is the active controller (Kafka's ActiveControllerCount is 1 there)
 * @param offlinePartitions  partitions with no leader
 * @param fencedBrokers      registered brokers that are fenced
 */
public record ClusterView(
        boolean activeController,
        int topics,
        int partitions,
        int offlinePartitions,
        int brokers,
        int fencedBrokers,
        long metadataOffset) {}
