package io.varve.http.view;

/**
 * One partition this node holds a log for, as the metrics show it.
 *
 * @param leader             whether this node leads it
 * @param replicas           replicas in the assignment
 * @param inSyncReplicas     replicas in the ISR
 * @param minInSyncReplicas  the topic's {@code min.insync.replicas}
 * @param sizeBytes          bytes of its local segments
 * @param remoteSizeBytes    bytes of its segments in remote storage, 0 when not tiered
 * @param uploadLagBytes     bytes of rolled segments not uploaded yet, 0 when not tiered
 * @param uploadLagSegments  rolled segments not uploaded yet
 */
public record PartitionView(
        String topic,
        int partition,
        boolean leader,
        int replicas,
        int inSyncReplicas,
        int minInSyncReplicas,
        long sizeBytes,
        long logStartOffset,
        long logEndOffset,
        long highWatermark,
        int segments,
        long remoteSizeBytes,
        long uploadLagBytes,
        int uploadLagSegments) {

    public boolean underReplicated() {
        return leader && inSyncReplicas < replicas;
    }

    public boolean underMinIsr() {
        return leader && inSyncReplicas < minInSyncReplicas;
    }

    public boolean atMinIsr() {
        return leader && inSyncReplicas == minInSyncReplicas;
    }
}
