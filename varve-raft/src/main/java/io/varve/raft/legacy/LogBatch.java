package io.varve.raft.legacy;

import java.util.List;
import java.util.Objects;

/**
 * A batch of entries appended atomically: consecutive offsets from {@code baseOffset}, one epoch.
 * The batch, not the entry, is the unit of atomicity on disk.
 */
public record LogBatch(long baseOffset, int epoch, List<byte[]> payloads) {

    public LogBatch {
        if (baseOffset < 0) {
            throw new IllegalArgumentException("baseOffset must be >= 0: " + baseOffset);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0: " + epoch);
        }
        payloads = List.copyOf(Objects.requireNonNull(payloads, "payloads"));
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("a batch holds at least one entry");
        }
    }

    public int recordCount() {
        return payloads.size();
    }

    public long lastOffset() {
        return baseOffset + payloads.size() - 1;
    }

    /** The offset following this batch. */
    public long nextOffset() {
        return baseOffset + payloads.size();
    }

    @Override
    public String toString() {
        return "LogBatch(baseOffset=" + baseOffset + ", epoch=" + epoch + ", records=" + payloads.size() + ")";
    }
}
