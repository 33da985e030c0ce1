package io.varve.raft.core.message;

import java.util.Arrays;
import java.util.Objects;

/**
 * One entry of the replicated log: its offset, the epoch of the leader that appended it, its type
 * and its payload. The payload array is owned by the entry once built: callers must not modify it.
 */
public record LogEntry(long offset, int epoch, EntryType type, byte[] payload) {

    public LogEntry {
        if (offset < 0 || epoch < 0) {
            throw new IllegalArgumentException("offset and epoch must be >= 0: " + offset + ", " + epoch);
        }
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(payload, "payload");
    }

    /** Same offset, epoch, type and bytes. */
    public boolean sameAs(LogEntry other) {
        return offset == other.offset
                && epoch == other.epoch
                && type == other.type
                && Arrays.equals(payload, other.payload);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogEntry other && sameAs(other);
    }

    @Override
    public int hashCode() {
        return Objects.hash(offset, epoch, type, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "LogEntry(" + offset + "@" + epoch + " " + type + " " + payload.length + "B)";
    }
}
