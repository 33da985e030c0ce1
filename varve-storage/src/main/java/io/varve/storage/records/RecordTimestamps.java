package io.varve.storage.records;

import java.nio.ByteBuffer;
import java.util.Iterator;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * The timestamps of the records inside one batch (decompressed if need be), for the time lookups that the
 * time index answers per batch only. A record of a LOG_APPEND_TIME batch carries the batch's max timestamp.
 */
public final class RecordTimestamps {

    /** One record's timestamp and offset. */
    public record RecordTime(long timestampMs, long offset) {}

    private RecordTimestamps() {}

    /**
     * The first record of {@code batch} (one batch, position to limit) stamped at or after {@code targetMs} whose
     * offset is at least {@code minOffset}, or null when there is none.
     */
    public static RecordTime firstAtOrAfter(ByteBuffer batch, long targetMs, long minOffset) {
        RecordBatch decoded = decode(batch);
        if (decoded == null) {
            return null;
        }
        for (Record record : decoded) {
            long timestampMs = timestampOf(decoded, record);
            if (timestampMs >= targetMs && record.offset() >= minOffset) {
                return new RecordTime(timestampMs, record.offset());
            }
        }
        return null;
    }

    /** The first record of {@code batch} carrying the batch's max timestamp (KIP-734), or null when none does. */
    public static RecordTime firstWithMaxTimestamp(ByteBuffer batch) {
        RecordBatch decoded = decode(batch);
        if (decoded == null) {
            return null;
        }
        for (Record record : decoded) {
            if (timestampOf(decoded, record) == decoded.maxTimestamp()) {
                return new RecordTime(decoded.maxTimestamp(), record.offset());
            }
        }
        return null;
    }

    private static RecordBatch decode(ByteBuffer batch) {
        Iterator<MutableRecordBatch> batches =
                MemoryRecords.readableRecords(batch.duplicate()).batches().iterator();
        return batches.hasNext() ? batches.next() : null;
    }

    private static long timestampOf(RecordBatch batch, Record record) {
        return batch.timestampType() == TimestampType.LOG_APPEND_TIME ? batch.maxTimestamp() : record.timestamp();
    }
}
