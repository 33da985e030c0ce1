package io.varve.raft.core;

import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.runtime.RaftLog;
import java.util.List;
import java.util.Optional;

/**
 * The high watermark and how far committed entries were handed to the state machine. The high
 * watermark only moves forward while the replica runs (it restarts at the log start, the end of the
 * latest snapshot); handing out never passes it.
 */
final class CommitTracker {
    private long highWatermark;
    private long deliveredEndOffset;
    private SnapshotId snapshotToLoad;

    CommitTracker(long logStartOffset, Optional<SnapshotId> latestSnapshot) {
        this.highWatermark = logStartOffset;
        this.deliveredEndOffset = logStartOffset;
        this.snapshotToLoad = latestSnapshot.orElse(null);
    }

    long highWatermark() {
        return highWatermark;
    }

    long deliveredEndOffset() {
        return deliveredEndOffset;
    }

    /** Moves the high watermark to {@code offset} if that is forward; never back. */
    void advanceTo(long offset) {
        if (offset > highWatermark) {
            highWatermark = offset;
        }
    }

    /** The state machine must restart from this snapshot, which ends at or above the high watermark. */
    void snapshotInstalled(SnapshotId id) {
        if (id.endOffset() < highWatermark) {
            throw new IllegalStateException("installing snapshot " + id + " below the high watermark " + highWatermark);
        }
        highWatermark = id.endOffset();
        deliveredEndOffset = id.endOffset();
        snapshotToLoad = id;
    }

    Optional<SnapshotId> takeSnapshotToLoad() {
        Optional<SnapshotId> out = Optional.ofNullable(snapshotToLoad);
        snapshotToLoad = null;
        return out;
    }

    /** The next committed entries not yet handed out, at most {@code max}. */
    List<LogEntry> takeCommitted(RaftLog log, int max) {
        if (deliveredEndOffset >= highWatermark) {
            return List.of();
        }
        if (deliveredEndOffset < log.startOffset()) {
            throw new IllegalStateException("committed entries from " + deliveredEndOffset
                    + " were dropped from the log (start " + log.startOffset() + ") before the state machine saw them");
        }
        List<LogEntry> entries = log.read(deliveredEndOffset, highWatermark, max);
        if (entries.isEmpty() || entries.get(0).offset() != deliveredEndOffset) {
            throw new IllegalStateException("the log lost committed entries at " + deliveredEndOffset);
        }
        deliveredEndOffset = entries.get(entries.size() - 1).offset() + 1;
        return entries;
    }
}
