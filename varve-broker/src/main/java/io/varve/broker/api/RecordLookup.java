package io.varve.broker.api;

import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import io.varve.storage.TimestampAndOffset;
import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.records.RecordTimestamps;
import io.varve.storage.records.RecordTimestamps.RecordTime;
import io.varve.tiered.read.RemoteBatch;
import java.nio.ByteBuffer;

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
        return firstRecordAtOrAfter(remote.bytes(), batchAnswer(remote), targetMs, logStartOffset);
    }

    private static TimestampAndOffset firstRecordAtOrAfter(
            ByteBuffer batch, TimestampAndOffset batchAnswer, long targetMs, long logStartOffset) {
        RecordTime found = batch == null ? null : RecordTimestamps.firstAtOrAfter(batch, targetMs, logStartOffset);
        return found == null ? batchAnswer : narrowed(found, batchAnswer);
    }

    /** The first record carrying the batch's max timestamp (KIP-734: the offset of the max-timestamp record). */
    static TimestampAndOffset maxTimestampRecord(PartitionLog log, TimestampAndOffset batchAnswer) {
        return maxTimestampRecord(batchAt(log, batchAnswer.offset()), batchAnswer);
    }

    /** The same for a batch read from remote storage. */
    static TimestampAndOffset maxTimestampRecord(RemoteBatch remote) {
        BatchHeader h = remote.header();
        return maxTimestampRecord(
                remote.bytes(), new TimestampAndOffset(h.maxTimestamp(), h.lastOffset(), h.partitionLeaderEpoch()));
    }

    private static TimestampAndOffset maxTimestampRecord(ByteBuffer batch, TimestampAndOffset batchAnswer) {
        RecordTime found = batch == null ? null : RecordTimestamps.firstWithMaxTimestamp(batch);
        return found == null ? batchAnswer : narrowed(found, batchAnswer);
    }

    private static TimestampAndOffset narrowed(RecordTime record, TimestampAndOffset batchAnswer) {
        return new TimestampAndOffset(record.timestampMs(), record.offset(), batchAnswer.leaderEpoch());
    }

    /** A remote time lookup's batch answer before narrowing: the batch's max timestamp at its base offset. */
    private static TimestampAndOffset batchAnswer(RemoteBatch remote) {
        BatchHeader h = remote.header();
        return new TimestampAndOffset(h.maxTimestamp(), h.baseOffset(), h.partitionLeaderEpoch());
    }

    /** The batch holding {@code offset}, or null when the log no longer has it. */
    private static ByteBuffer batchAt(PartitionLog log, long offset) {
        LogReadResult read = log.read(offset, 1, log.highWatermark(), true);
        return RecordBatchV2.firstBatchEndingAtOrAfter(read.records(), offset);
    }

    private RecordLookup() {}
}
