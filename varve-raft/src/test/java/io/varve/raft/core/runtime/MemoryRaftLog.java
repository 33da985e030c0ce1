package io.varve.raft.core.runtime;

import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.SnapshotId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An in-memory {@link RaftLog} that knows what a crash would keep: {@link #crash()} drops every entry
 * appended since the last {@link #flush()}. Checks the log's own contract on every call.
 */
public final class MemoryRaftLog implements RaftLog {
    private final List<LogEntry> entries = new ArrayList<>();
    private long startOffset;
    private int startEpoch;
    private long flushedEndOffset;
    private int truncations;
    private int resets;

    @Override
    public long startOffset() {
        return startOffset;
    }

    @Override
    public int startEpoch() {
        return startEpoch;
    }

    @Override
    public long endOffset() {
        return startOffset + entries.size();
    }

    @Override
    public long flushedEndOffset() {
        return flushedEndOffset;
    }

    @Override
    public int lastEpoch() {
        return entries.isEmpty() ? startEpoch : entries.get(entries.size() - 1).epoch();
    }

    @Override
    public void append(List<LogEntry> batch) {
        int epoch = lastEpoch();
        long offset = endOffset();
        for (LogEntry entry : batch) {
            if (entry.offset() != offset || entry.epoch() < epoch) {
                throw new IllegalArgumentException("append " + entry + " at end " + offset + ", last epoch " + epoch);
            }
            entries.add(entry);
            offset++;
            epoch = entry.epoch();
        }
    }

    @Override
    public void flush() {
        flushedEndOffset = endOffset();
    }

    @Override
    public List<LogEntry> read(long fromOffset, long toOffsetExclusive, int maxEntries) {
        if (fromOffset < startOffset || fromOffset > endOffset()) {
            throw new IllegalArgumentException(
                    "read from " + fromOffset + " outside [" + startOffset + ", " + endOffset() + "]");
        }
        long to = Math.min(Math.min(toOffsetExclusive, endOffset()), fromOffset + maxEntries);
        if (to <= fromOffset) {
            return List.of();
        }
        return List.copyOf(entries.subList((int) (fromOffset - startOffset), (int) (to - startOffset)));
    }

    @Override
    public void truncateTo(long offset) {
        if (offset < startOffset || offset > endOffset()) {
            throw new IllegalArgumentException(
                    "truncate to " + offset + " outside [" + startOffset + ", " + endOffset() + "]");
        }
        if (offset < endOffset()) {
            truncations++;
        }
        entries.subList((int) (offset - startOffset), entries.size()).clear();
        flushedEndOffset = Math.min(flushedEndOffset, offset);
    }

    @Override
    public Optional<OffsetAndEpoch> endOffsetForEpoch(int epoch) {
        if (epoch < startEpoch) {
            return Optional.empty();
        }
        for (int i = entries.size() - 1; i >= 0; i--) {
            LogEntry entry = entries.get(i);
            if (entry.epoch() <= epoch) {
                return Optional.of(new OffsetAndEpoch(entry.offset() + 1, entry.epoch()));
            }
        }
        return Optional.of(new OffsetAndEpoch(startOffset, startEpoch));
    }

    @Override
    public void advanceStart(SnapshotId snapshot) {
        long end = snapshot.endOffset();
        if (end <= startOffset || end > endOffset()) {
            throw new IllegalArgumentException(
                    "snapshot " + snapshot + " outside (" + startOffset + ", " + endOffset() + "]");
        }
        LogEntry last = entries.get((int) (end - 1 - startOffset));
        if (last.epoch() != snapshot.epoch()) {
            throw new IllegalArgumentException("snapshot " + snapshot + " does not match " + last);
        }
        entries.subList(0, (int) (end - startOffset)).clear();
        startOffset = end;
        startEpoch = snapshot.epoch();
        flushedEndOffset = Math.max(flushedEndOffset, startOffset);
    }

    @Override
    public void resetTo(SnapshotId snapshot) {
        resets++;
        entries.clear();
        startOffset = snapshot.endOffset();
        startEpoch = snapshot.epoch();
        flushedEndOffset = startOffset;
    }

    /** How many times entries were removed from the tail (a crash's loss included). */
    public int truncations() {
        return truncations;
    }

    /** How many snapshots were installed over this log. */
    public int resets() {
        return resets;
    }

    /** What a crash leaves: the entries below the flushed end. */
    public void crash() {
        truncateTo(Math.max(flushedEndOffset, startOffset));
    }
}
