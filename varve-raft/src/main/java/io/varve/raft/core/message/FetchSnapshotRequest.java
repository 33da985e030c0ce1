package io.varve.raft.core.message;

/** Kafka's FetchSnapshotRequest: one chunk of at most {@code maxBytes} from {@code position}. */
public record FetchSnapshotRequest(
        String clusterId, int replicaId, int currentLeaderEpoch, SnapshotId snapshotId, long position, int maxBytes)
        implements RaftRequest {}
