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

    /** The single-node quorum's controller is this node. */
    public int controllerId() {
        return nodeId;
    }
}
