package io.varve.storage.records;

import static io.varve.storage.batch.RecordBatchV2.HEADER_SIZE_BYTES;
import static io.varve.storage.batch.RecordBatchV2.LOG_OVERHEAD_BYTES;
import static io.varve.storage.batch.RecordBatchV2.MAGIC;
import static io.varve.storage.batch.RecordBatchV2.MIN_BATCH_LENGTH;

import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.RecordBatchV2;
import java.nio.ByteBuffer;
import java.util.function.ObjIntConsumer;
import org.apache.kafka.common.errors.CorruptRecordException;

/** Walks whole v2 batches in a buffer by their headers (our own parser), handing out each batch's bytes. */
final class StoredBatches {

    private StoredBatches() {}

    /**
     * Calls {@code each} with the header and the bytes of every whole batch from position to limit of
     * {@code batches}; the slice handed out is the batch alone, positioned at 0.
     *
     * @throws CorruptRecordException a header that cannot start a v2 batch, or a batch running past the limit
     */
    static void forEach(ByteBuffer batches, ObjIntConsumer<Batch> each) {
        int start = batches.position();
        int end = batches.limit();
        int index = 0;
        for (int at = start; at < end; index++) {
            if (end - at < HEADER_SIZE_BYTES) {
                throw new CorruptRecordException("Partial batch header of " + (end - at) + " bytes at position " + at);
            }
            BatchHeader header = BatchHeader.parse(batches, at, at - start);
            if (header.magic() != MAGIC
                    || header.sizeBytes() - LOG_OVERHEAD_BYTES < MIN_BATCH_LENGTH
                    || header.sizeBytes() > end - at) {
                throw new CorruptRecordException("Invalid batch at position " + (at - start) + " (magic "
                        + header.magic() + ", " + header.sizeBytes() + " bytes, " + (end - at) + " left)");
            }
            ByteBuffer bytes = batches.duplicate()
                    .position(at)
                    .limit(at + header.sizeBytes())
                    .slice();
            each.accept(new Batch(header, bytes), index);
            at += RecordBatchV2.sizeBytes(batches, at);
        }
    }

    /** One batch: its parsed header and its bytes. */
    record Batch(BatchHeader header, ByteBuffer bytes) {
        BatchInfo info() {
            return BatchInfo.of(header);
        }
    }
}
