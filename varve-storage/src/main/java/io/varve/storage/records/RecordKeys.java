package io.varve.storage.records;

import java.nio.ByteBuffer;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.utils.internals.BufferSupplier;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/** Reads the keys of the records inside batches, compressed ones included. */
public final class RecordKeys {

    /** What a {@link KeyVisitor} wants done with the next batch. */
    public enum Decision {
        /** Decode the batch and hand out its records. */
        READ,
        /** Go to the next batch without decoding this one. */
        SKIP,
        /** Stop before this batch. */
        STOP
    }

    /** Receives batches, then the records of those it chose to read. */
    public interface KeyVisitor {
        Decision batch(BatchInfo batch);

        /**
         * One record of a batch being read.
         *
         * @param key null for a record without a key; valid only during the call
         */
        void record(long offset, ByteBuffer key, boolean hasValue);
    }

    private RecordKeys() {}

    /**
     * Refuses batches holding a record without a key, which a compacted topic cannot hold (Kafka's rule).
     *
     * @throws InvalidRecordException a record has no key (the produce error INVALID_RECORD)
     */
    public static void requireKeys(ByteBuffer batches, String partition) {
        visit(batches, new KeyVisitor() {
            private long baseOffset;

            @Override
            public Decision batch(BatchInfo batch) {
                baseOffset = batch.baseOffset();
                return Decision.READ;
            }

            @Override
            public void record(long offset, ByteBuffer key, boolean hasValue) {
                if (key == null) {
                    throw new InvalidRecordException("Compacted topic partition " + partition
                            + " cannot accept a record " + "without a key (the record at offset delta "
                            + (offset - baseOffset) + " of its batch has none)");
                }
            }
        });
    }

    /**
     * Walks the batches from position to limit of {@code batches}, asking {@code visitor} about each and
     * handing it the records of those it reads.
     *
     * @return the offset the walk stopped at: the base offset of the batch the visitor stopped before, or
     *     the offset after the last batch (-1 when there was none)
     */
    public static long visit(ByteBuffer batches, KeyVisitor visitor) {
        long[] stoppedAt = {-1};
        boolean[] stopped = {false};
        try (BufferSupplier buffers = BufferSupplier.create()) {
            StoredBatches.forEach(batches, (batch, index) -> {
                if (stopped[0]) {
                    return;
                }
                Decision decision = visitor.batch(batch.info());
                if (decision == Decision.STOP) {
                    stopped[0] = true;
                    stoppedAt[0] = batch.header().baseOffset();
                    return;
                }
                stoppedAt[0] = batch.header().nextOffset();
                if (decision == Decision.SKIP) {
                    return;
                }
                MutableRecordBatch decoded = MemoryRecords.readableRecords(batch.bytes())
                        .batches()
                        .iterator()
                        .next();
                try (CloseableIterator<Record> records = decoded.streamingIterator(buffers)) {
                    while (records.hasNext()) {
                        Record record = records.next();
                        visitor.record(record.offset(), record.hasKey() ? record.key() : null, record.hasValue());
                    }
                }
            });
        }
        return stoppedAt[0];
    }
}
