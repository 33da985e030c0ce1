package io.varve.raft;

import java.util.Arrays;
import java.util.Objects;

/**
 * One committed entry of the Raft log as handed to a {@link RaftListener}.
 *
 * <p>The payload array is shared, not copied: neither the appender nor listeners may mutate it.
 *
 * @param offset  the entry's position in the log (0-based, dense within a batch)
 * @param epoch   the leader epoch in which the entry was appended
 * @param payload the opaque bytes given to {@link MetadataRaft#append}
 */
public record RaftRecord(long offset, int epoch, byte[] payload) {

    public RaftRecord {
        if (offset < 0) {
            throw new IllegalArgumentException("offset must be >= 0: " + offset);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
        }
        Objects.requireNonNull(payload, "payload");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RaftRecord that
                && offset == that.offset
                && epoch == that.epoch
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(offset, epoch, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "RaftRecord(offset=" + offset + ", epoch=" + epoch + ", payloadBytes=" + payload.length + ")";
    }
}
