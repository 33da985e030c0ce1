package io.varve.raft.core;

import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.runtime.RaftLog;
import java.util.List;
import java.util.Optional;

/** The injected log, with every change mirrored into the {@link VoterHistory}: the core only writes through this. */
final class VoterTrackingLog implements RaftLog {
    private static final int SCAN_CHUNK = 1024;

    private final RaftLog log;
    final VoterHistory history;

    /** Rebuilds the history from the log above its start (once, at construction). */
    VoterTrackingLog(RaftLog log, VoterHistory history) {
        this.log = log;
        this.history = history;
        for (long offset = log.startOffset(); offset < log.endOffset(); ) {
            List<LogEntry> entries = log.read(offset, log.endOffset(), SCAN_CHUNK);
            if (entries.isEmpty()) {
                throw new IllegalStateException(
                        "the log returned nothing at " + offset + " below its end " + log.endOffset());
            }
            history.appended(entries);
            offset = entries.get(entries.size() - 1).offset() + 1;
        }
    }

    @Override
    public long startOffset() {
        return log.startOffset();
    }

    @Override
    public int startEpoch() {
        return log.startEpoch();
    }

    @Override
    public long endOffset() {
        return log.endOffset();
    }

    @Override
    public long flushedEndOffset() {
        return log.flushedEndOffset();
    }

    @Override
    public int lastEpoch() {
        return log.lastEpoch();
    }

    @Override
    public void append(List<LogEntry> entries) {
        log.append(entries);
        history.appended(entries);
    }

    @Override
    public void flush() {
        log.flush();
    }

    @Override
    public List<LogEntry> read(long fromOffset, long toOffsetExclusive, int maxEntries) {
        return log.read(fromOffset, toOffsetExclusive, maxEntries);
    }

    @Override
    public void truncateTo(long offset) {
        log.truncateTo(offset);
        history.truncatedTo(offset);
    }

    @Override
    public Optional<OffsetAndEpoch> endOffsetForEpoch(int epoch) {
        return log.endOffsetForEpoch(epoch);
    }

    @Override
    public void advanceStart(SnapshotId snapshot) {
        log.advanceStart(snapshot);
        history.startAdvancedTo(snapshot.endOffset());
    }

    /** Use {@link #resetTo(SnapshotId, io.varve.raft.core.message.VoterSet)}: a reset needs the snapshot's voters. */
    @Override
    public void resetTo(SnapshotId snapshot) {
        throw new UnsupportedOperationException("reset with the snapshot's voter set");
    }

    void resetTo(SnapshotId snapshot, io.varve.raft.core.message.VoterSet voters) {
        log.resetTo(snapshot);
        history.reset(voters);
    }
}
