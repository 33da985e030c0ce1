package io.varve.broker.api;

import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import io.varve.storage.TimestampAndOffset;
import io.varve.storage.batch.BatchHeader;
import io.varve.tiered.read.RemoteBatch;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Narrows a time lookup that the log answers per batch down to the record, by decoding that one batch
 * (decompressing it if needed), as Kafka's ListOffsets does.
 */
final class RecordLookup {

    /** The first record at or after {@code targetMs} in the batch the log found (or the batch's own answer). */
    static TimestampAndOffset firstRecordAtOrAfter(PartitionLog log, TimestampAndOffset batchAnswer, long targetMs) {
        return firstRecordAtOrAfter(batchAt(log, batchAnswer.offset()), batchAnswer, targetMs, log.logStartOffset());
    }

    /** The same for a batch read from remote storage. */
    static TimestampAndOffset firstRecordAtOrAfter(RemoteBatch remote, long targetMs, long logStartOffset) {
        return firstRecordAtOrAfter(batchOf(remote), batchAnswer(remote), targetMs, logStartOffset);
    }

    private static TimestampAndOffset firstRecordAtOrAfter(
            RecordBatch batch, TimestampAndOffset batchAnswer, long targetMs, long logStartOffset) {
        if (batch == null) {
            return batchAnswer;
        }
        for (Record record : batch) {
            long ts = recordTimestamp(batch, record);
            if (ts >= targetMs && record.offset() >= logStartOffset) {
                return new TimestampAndOffset(ts, record.offset(), batchAnswer.leaderEpoch());
            }
        }
        return batchAnswer;
    }

    /** The first record carrying the batch's max timestamp (KIP-734: the offset of the max-timestamp record). */
    static TimestampAndOffset maxTimestampRecord(PartitionLog log, TimestampAndOffset batchAnswer) {
        return maxTimestampRecord(batchAt(log, batchAnswer.offset()), batchAnswer);
    }

    /** The same for a batch read from remote storage. */
    static TimestampAndOffset maxTimestampRecord(RemoteBatch remote) {
        BatchHeader h = remote.header();
        return maxTimestampRecord(
                batchOf(remote), new TimestampAndOffset(h.maxTimestamp(), h.lastOffset(), h.partitionLeaderEpoch()));
    }

    private static TimestampAndOffset maxTimestampRecord(RecordBatch batch, TimestampAndOffset batchAnswer) {
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
                ? batch.maxTimestamp()
                : record.timestamp();
    }

    /** A remote time lookup's batch answer before narrowing: the batch's max timestamp at its base offset. */
    private static TimestampAndOffset batchAnswer(RemoteBatch remote) {
        BatchHeader h = remote.header();
        return new TimestampAndOffset(h.maxTimestamp(), h.baseOffset(), h.partitionLeaderEpoch());
    }

    private static RecordBatch batchOf(RemoteBatch remote) {
        for (RecordBatch batch :
                MemoryRecords.readableRecords(remote.bytes().duplicate()).batches()) {
            return batch;
        }
        return null;
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

    private RecordLookup() {}
}
