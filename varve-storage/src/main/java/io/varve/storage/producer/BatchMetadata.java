package io.varve.storage.producer;

/**
 * Where one idempotent batch landed: its sequence range and offset range.
 *
 * @param timestampMs the batch's max timestamp as stored (the append time under LogAppendTime)
 */
public record BatchMetadata(int firstSeq, int lastSeq, long firstOffset, long lastOffset, long timestampMs) {

    public boolean sameSequenceRange(int otherFirstSeq, int otherLastSeq) {
        return firstSeq == otherFirstSeq && lastSeq == otherLastSeq;
    }
}
