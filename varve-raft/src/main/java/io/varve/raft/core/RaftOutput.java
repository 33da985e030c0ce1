package io.varve.raft.core;

import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OutboundMessage;
import io.varve.raft.core.message.SnapshotId;
import java.util.List;
import java.util.Optional;

/**
 * What one call into the core asks the caller to do: send {@code messages}; if {@code loadSnapshot} is
 * set, reset the state machine to that snapshot first; then apply {@code committed} (entries that became
 * committed, in offset order, at most a bounded number per call: the rest follow on later calls).
 * {@code highWatermark} is the replica's high watermark after the call. Log and election-state writes
 * have already happened through the seams.
 */
public record RaftOutput(
        List<OutboundMessage> messages,
        Optional<SnapshotId> loadSnapshot,
        List<LogEntry> committed,
        long highWatermark) {

    public RaftOutput {
        messages = List.copyOf(messages);
        committed = List.copyOf(committed);
    }
}
