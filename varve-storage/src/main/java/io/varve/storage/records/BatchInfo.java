package io.varve.storage.records;

import io.varve.storage.batch.BatchHeader;

/**
 * What a caller of this package learns about one stored batch, without kafka-clients types.
 *
 * @param recordCount records the header announces (0 for a batch a cleaner emptied)
 */
public record BatchInfo(
        long baseOffset, long lastOffset, long producerId, boolean transactional, boolean control, int recordCount) {

    static BatchInfo of(BatchHeader header) {
        return new BatchInfo(
                header.baseOffset(),
                header.lastOffset(),
                header.producerId(),
                header.isTransactional(),
                header.isControl(),
                header.recordsCount());
    }

    public boolean hasProducerId() {
        return producerId >= 0;
    }
}
