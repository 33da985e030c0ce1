package io.varve.storage.segment;

/**
 * One aborted transaction as the transaction index keeps it (Kafka's entry shape).
 *
 * @param producerId       the producer whose transaction was aborted
 * @param firstOffset      its first offset in this partition (the marker's when it wrote no data here)
 * @param lastOffset       the offset of its ABORT marker
 * @param lastStableOffset the partition's last stable offset just after the abort
 */
public record AbortedTxn(long producerId, long firstOffset, long lastOffset, long lastStableOffset) {

    public AbortedTxn {
        // the last stable offset may lie below firstOffset: an older transaction of another producer can still be open
        if (firstOffset < 0 || firstOffset > lastOffset || lastStableOffset < 0 || lastStableOffset > lastOffset + 1) {
            throw new IllegalArgumentException("Inconsistent aborted transaction " + producerId + " [" + firstOffset
                    + ", " + lastOffset + "] with last stable offset " + lastStableOffset);
        }
    }
}
