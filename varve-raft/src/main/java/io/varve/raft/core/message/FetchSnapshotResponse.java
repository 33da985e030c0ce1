package io.varve.raft.core.message;

/**
 * Kafka's FetchSnapshotResponse: {@code size} is the whole snapshot's size, {@code bytes} the chunk at
 * {@code position} (Kafka's UnalignedRecords). The array is owned by the response once built.
 */
public record FetchSnapshotResponse(
        RaftError error, int leaderId, int leaderEpoch, SnapshotId snapshotId, long size, long position, byte[] bytes)
        implements RaftResponse {

    public static FetchSnapshotResponse error(RaftError error, int leaderId, int leaderEpoch) {
        return new FetchSnapshotResponse(error, leaderId, leaderEpoch, null, -1, -1, new byte[0]);
    }
}
