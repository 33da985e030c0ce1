package io.varve.raft.core.message;

/**
 * A snapshot's identity as in KIP-630: it holds the state of every entry below {@code endOffset};
 * {@code epoch} is the epoch of the entry at {@code endOffset - 1} (0 for an empty prefix).
 */
public record SnapshotId(long endOffset, int epoch) {

    public SnapshotId {
        if (endOffset < 0 || epoch < 0) {
            throw new IllegalArgumentException("endOffset and epoch must be >= 0: " + endOffset + ", " + epoch);
        }
    }

    public OffsetAndEpoch asOffsetAndEpoch() {
        return new OffsetAndEpoch(endOffset, epoch);
    }
}
