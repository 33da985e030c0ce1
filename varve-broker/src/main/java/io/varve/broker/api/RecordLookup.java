package io.varve.broker.api;

import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import io.varve.storage.TimestampAndOffset;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Narrows a time lookup that the log answers per batch down to the record, by decoding that one batch
 * (decompressing it if needed), as Kafka's ListOffsets does.
 */
final class RecordLookup {

    /** The first record at or after {@code targetMs} in the batch the log found (or the batch's own answer). */
    static TimestampAndOffset firstRecordAtOrAfter(PartitionLog log, TimestampAndOffset batchAnswer, long targetMs) {
        RecordBatch batch = batchAt(log, batchAnswer.offset());
        if (batch == null) {
            return batchAnswer;
        }
        for (Record record : batch) {
            long ts = recordTimestamp(batch, record);
            if (ts >= targetMs && record.offset() >= log.logStartOffset()) {
                return new TimestampAndOffset(ts, record.offset(), batchAnswer.leaderEpoch());
            }
        }
        return batchAnswer;
    }

    /** The first record carrying the batch's max timestamp (KIP-734: the offset of the max-timestamp record). */
    static TimestampAndOffset maxTimestampRecord(PartitionLog log, TimestampAndOffset batchAnswer) {
        RecordBatch batch = batchAt(log, batchAnswer.offset());
        if (batch == null) {
            return batchAnswer;
        }
        for (Record record : batch) {
            if (recordTimestamp(batch, record) == batch.maxTimestamp()) {
                return new TimestampAndOffset(batch.maxTimestamp(), record.offset(), batchAnswer.leaderEpoch());
            }
        }
        return batchAnswer;
    }

    private static long recordTimestamp(RecordBatch batch, Record record) {
        return batch.timestampType() == org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME
                ? batch.maxTimestamp() : record.timestamp();
    }

    private static RecordBatch batchAt(PartitionLog log, long offset) {
        LogReadResult read = log.read(offset, 1, log.highWatermark(), true);
        for (RecordBatch batch : MemoryRecords.readableRecords(read.records()).batches()) {
            if (batch.lastOffset() >= offset) {
                return batch;
            }
        }
        return null;
    }

    private RecordLookup() {
    }
}
