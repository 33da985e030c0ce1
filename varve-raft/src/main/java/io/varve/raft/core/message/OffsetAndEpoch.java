package io.varve.raft.core.message;

/**
 * An offset with the epoch of the entry just before it: Kafka's {@code EpochEndOffset} and
 * {@code DivergingEpoch} shape. Ordered by epoch, then offset (the "more up to date" order of Raft).
 */
public record OffsetAndEpoch(long offset, int epoch) implements Comparable<OffsetAndEpoch> {

    public static final OffsetAndEpoch ZERO = new OffsetAndEpoch(0, 0);

    public OffsetAndEpoch {
        if (offset < 0 || epoch < 0) {
            throw new IllegalArgumentException("offset and epoch must be >= 0: " + offset + ", " + epoch);
        }
    }

    @Override
    public int compareTo(OffsetAndEpoch other) {
        int byEpoch = Integer.compare(epoch, other.epoch);
        return byEpoch != 0 ? byEpoch : Long.compare(offset, other.offset);
    }
}
