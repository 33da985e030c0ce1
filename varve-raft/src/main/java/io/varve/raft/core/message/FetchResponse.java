package io.varve.raft.core.message;

import java.util.List;
import java.util.Optional;

/**
 * Kafka's FetchResponse for one partition: at most one of {@code divergingEpoch} (truncate to it, then
 * fetch again), {@code snapshotId} (the fetch offset is below the log start: pull this snapshot) and a
 * non-empty {@code records} is set.
 */
public record FetchResponse(
        RaftError error,
        int leaderId,
        int leaderEpoch,
        long highWatermark,
        long logStartOffset,
        Optional<OffsetAndEpoch> divergingEpoch,
        Optional<SnapshotId> snapshotId,
        List<LogEntry> records)
        implements RaftResponse {

    public FetchResponse {
        records = List.copyOf(records);
        int set = (divergingEpoch.isPresent() ? 1 : 0) + (snapshotId.isPresent() ? 1 : 0) + (records.isEmpty() ? 0 : 1);
        if (set > 1) {
            throw new IllegalArgumentException("a fetch response carries one of diverging epoch, snapshot id, records");
        }
    }

    /** An error answer: no data, only the responder's view of the leader. */
    public static FetchResponse error(RaftError error, int leaderId, int leaderEpoch) {
        return new FetchResponse(error, leaderId, leaderEpoch, -1, -1, Optional.empty(), Optional.empty(), List.of());
    }
}
