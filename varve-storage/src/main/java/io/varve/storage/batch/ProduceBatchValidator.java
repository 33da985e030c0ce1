package io.varve.storage.batch;

import static io.varve.storage.batch.RecordBatchV2.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;

/**
 * Checks the record bytes of a produce request before anything is written: every batch whole,
 * magic v2, a sane header, a matching CRC, and the size limits. Pure: reads the buffer, changes nothing.
 */
public final class ProduceBatchValidator {

    private ProduceBatchValidator() {}

    /**
     * Validates {@code records} from position to limit and returns the batch headers in order;
     * positions in the headers are relative to {@code records.position()}.
     *
     * @throws InvalidRecordException       empty input, magic other than 2, or an inconsistent header
     * @throws CorruptRecordException       CRC mismatch or a trailing partial batch
     * @throws RecordTooLargeException      a batch larger than {@code maxMessageBytes}
     * @throws RecordBatchTooLargeException the whole set larger than {@code segmentBytes}
     */
    public static List<BatchHeader> validate(ByteBuffer records, int maxMessageBytes, long segmentBytes) {
        return validate(records, maxMessageBytes, segmentBytes, false);
    }

    /**
     * {@link #validate(ByteBuffer, int, long)}, letting control batches through when {@code controlAllowed}
     * (a coordinator's transaction markers; their content is checked by the log).
     */
    public static List<BatchHeader> validate(
            ByteBuffer records, int maxMessageBytes, long segmentBytes, boolean controlAllowed) {
        int base = records.position();
        int totalBytes = records.remaining();
        if (totalBytes == 0) {
            throw new InvalidRecordException("Produce request carries no record batches");
        }
        List<BatchHeader> headers = new ArrayList<>();
        int offset = 0;
        while (offset < totalBytes) {
            headers.add(validateOne(records, base, offset, totalBytes - offset, maxMessageBytes, controlAllowed));
            offset += headers.get(headers.size() - 1).sizeBytes();
        }
        if (totalBytes > segmentBytes) {
            throw new RecordBatchTooLargeException(
                    "Record set of " + totalBytes + " bytes exceeds the segment size of " + segmentBytes + " bytes");
        }
        return headers;
    }

    /**
     * CreateTime bounds: every batch's max timestamp at most {@code afterMaxMs} after {@code nowMs} and its
     * base timestamp at most {@code beforeMaxMs} before it (batches without timestamps pass).
     *
     * @throws InvalidTimestampException a batch is out of bounds
     */
    public static void checkTimestamps(List<BatchHeader> headers, long nowMs, long beforeMaxMs, long afterMaxMs) {
        long newestAllowed = nowMs > Long.MAX_VALUE - afterMaxMs ? Long.MAX_VALUE : nowMs + afterMaxMs;
        long oldestAllowed = nowMs < Long.MIN_VALUE + beforeMaxMs ? Long.MIN_VALUE : nowMs - beforeMaxMs;
        for (BatchHeader header : headers) {
            long newest = header.maxTimestamp();
            long oldest = header.baseTimestamp();
            if ((newest != NO_TIMESTAMP && newest > newestAllowed)
                    || (oldest != NO_TIMESTAMP && oldest < oldestAllowed)) {
                throw new InvalidTimestampException(
                        "Timestamps [" + oldest + ", " + newest + "] of the batch at position "
                                + header.position() + " are out of range: they must be within [" + oldestAllowed + ", "
                                + newestAllowed
                                + "] (message.timestamp.before.max.ms and message.timestamp.after.max.ms)");
            }
        }
    }

    private static BatchHeader validateOne(
            ByteBuffer buf, int base, int offset, int remaining, int maxMessageBytes, boolean controlAllowed) {
        int start = base + offset;
        if (remaining < LOG_OVERHEAD_BYTES) {
            throw new CorruptRecordException("Trailing partial batch of " + remaining + " bytes at position " + offset);
        }
        int batchLength = buf.getInt(start + LENGTH_OFFSET);
        if (batchLength < MIN_BATCH_LENGTH) {
            throw new InvalidRecordException("Batch at position " + offset + " has invalid length " + batchLength);
        }
        if (remaining < LOG_OVERHEAD_BYTES + batchLength) {
            throw new CorruptRecordException("Trailing partial batch at position " + offset + ": length " + batchLength
                    + " but only " + (remaining - LOG_OVERHEAD_BYTES) + " bytes follow");
        }
        BatchHeader header = BatchHeader.parse(buf, start, offset);
        if (header.magic() != MAGIC) {
            throw new InvalidRecordException(
                    "Batch at position " + offset + " has magic " + header.magic() + "; only v2 batches are accepted");
        }
        if (header.sizeBytes() > maxMessageBytes) {
            throw new RecordTooLargeException("Batch at position " + offset + " is " + header.sizeBytes()
                    + " bytes, larger than max.message.bytes " + maxMessageBytes);
        }
        long computedCrc = computeCrc(buf, start, header.sizeBytes());
        if (computedCrc != header.crc()) {
            throw new CorruptRecordException(
                    "Batch at position " + offset + " has CRC " + header.crc() + " but its bytes give " + computedCrc);
        }
        if (header.lastOffsetDelta() < 0) {
            throw new InvalidRecordException(
                    "Batch at position " + offset + " has negative lastOffsetDelta " + header.lastOffsetDelta());
        }
        if (header.recordsCount() != header.lastOffsetDelta() + 1) {
            throw new InvalidRecordException("Batch at position " + offset + " has " + header.recordsCount()
                    + " records but lastOffsetDelta " + header.lastOffsetDelta());
        }
        if (header.compressionCodec() > MAX_COMPRESSION_CODEC) {
            throw new InvalidRecordException(
                    "Batch at position " + offset + " has unknown compression codec " + header.compressionCodec());
        }
        if (header.isControl() && !controlAllowed) {
            throw new InvalidRecordException(
                    "Batch at position " + offset + " is a control batch; clients may not write them");
        }
        return header;
    }
}
