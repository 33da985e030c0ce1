package io.varve.raft.core;

import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.VoterSet;
import java.util.ArrayList;
import java.util.List;

/**
 * The voter set over the log (KIP-853): the set at the log start (from the snapshot, or the bootstrap
 * voters) and every VOTERS entry above it. The set in effect is the last one appended, committed or not,
 * so truncating the log can bring back an earlier set.
 */
final class VoterHistory {
    private VoterSet base;
    private final List<Long> offsets = new ArrayList<>();
    private final List<VoterSet> sets = new ArrayList<>();

    VoterHistory(VoterSet base) {
        this.base = base;
    }

    VoterSet current() {
        return sets.isEmpty() ? base : sets.get(sets.size() - 1);
    }

    /** The set in effect for an entry appended at {@code endOffset}: the last change below it. */
    VoterSet at(long endOffset) {
        for (int i = offsets.size() - 1; i >= 0; i--) {
            if (offsets.get(i) < endOffset) {
                return sets.get(i);
            }
        }
        return base;
    }

    /** The offset of the last VOTERS entry in the log, or -1. */
    long lastChangeOffset() {
        return offsets.isEmpty() ? -1 : offsets.get(offsets.size() - 1);
    }

    void appended(List<LogEntry> entries) {
        for (LogEntry entry : entries) {
            if (entry.type() == EntryType.VOTERS) {
                if (!offsets.isEmpty() && entry.offset() <= lastChangeOffset()) {
                    throw new IllegalStateException(
                            "voter change at " + entry.offset() + " after " + lastChangeOffset());
                }
                offsets.add(entry.offset());
                sets.add(VoterSet.decode(entry.payload()));
            }
        }
    }

    void truncatedTo(long offset) {
        while (!offsets.isEmpty() && lastChangeOffset() >= offset) {
            offsets.remove(offsets.size() - 1);
            sets.remove(sets.size() - 1);
        }
    }

    /** The log now starts at {@code startOffset}: changes below it fold into the base. */
    void startAdvancedTo(long startOffset) {
        while (!offsets.isEmpty() && offsets.get(0) < startOffset) {
            base = sets.get(0);
            offsets.remove(0);
            sets.remove(0);
        }
    }

    void reset(VoterSet newBase) {
        base = newBase;
        offsets.clear();
        sets.clear();
    }
}
