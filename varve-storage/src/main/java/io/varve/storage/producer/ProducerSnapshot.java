package io.varve.storage.producer;

import java.util.Map;

/**
 * The producer state of a partition as it was when the log ended at {@code offset}, plus where that
 * end was on disk: the active segment's base offset and size. A clean start whose active segment
 * still has exactly that size takes {@code offset} as the log end offset without reading the log.
 *
 * @param offset             log end offset the state is valid at; the file is named after it
 * @param segmentBaseOffset  base offset of the active segment at that moment
 * @param segmentSizeBytes   size of the active segment at that moment
 * @param producers          every producer's entry
 */
public record ProducerSnapshot(
        long offset, long segmentBaseOffset, int segmentSizeBytes, Map<Long, ProducerStateEntry> producers) {

    public ProducerSnapshot {
        if (segmentBaseOffset > offset || segmentSizeBytes < 0) {
            throw new IllegalArgumentException("Snapshot at " + offset + " cannot end in segment " + segmentBaseOffset
                    + " of " + segmentSizeBytes + " bytes");
        }
        producers = Map.copyOf(producers);
    }
}
