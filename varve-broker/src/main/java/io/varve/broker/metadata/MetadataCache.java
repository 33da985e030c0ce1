package io.varve.broker.metadata;

/** Holds the latest {@link MetadataSnapshot}; replaced whole on every metadata update, read without locks. */
public final class MetadataCache {
    private final int nodeId;
    private final String clusterId;
    private volatile MetadataSnapshot snapshot = MetadataSnapshot.EMPTY;

    public MetadataCache(int nodeId, String clusterId) {
        this.nodeId = nodeId;
        this.clusterId = clusterId;
    }

    public MetadataSnapshot snapshot() {
        return snapshot;
    }

    public void update(MetadataSnapshot next) {
        snapshot = next;
    }

    public int nodeId() {
        return nodeId;
    }

    public String clusterId() {
        return clusterId;
    }

    /**
     * The controller id Metadata and DescribeCluster report. Clients cannot reach the controllers through a broker
     * listener, and every broker forwards admin writes to the active one, so, as Kafka's brokers do, a broker names
     * one of the brokers listed: itself when listed (registered and unfenced), otherwise the first listed, or -1 when
     * none is (clients then ask again).
     */
    public int controllerId() {
        java.util.List<MetadataSnapshot.BrokerInfo> brokers = snapshot.brokers();
        if (brokers.stream().anyMatch(b -> b.nodeId() == nodeId)) {
            return nodeId;
        }
        return brokers.stream()
                .mapToInt(MetadataSnapshot.BrokerInfo::nodeId)
                .min()
                .orElse(-1);
    }
}
