package io.varve.storage.batch;

import static io.varve.storage.batch.RecordBatchV2.*;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;

/**
 * Checks batches a follower copies from its leader before anything is written: magic v2, a sane header, a
 * matching CRC, and offsets that only grow. Unlike a produce request, the batches keep the offsets, leader
 * epochs and producer fields the leader gave them, may be control batches, may hold fewer records than their
 * offset range (compaction), may leave gaps between them (compaction), and the set may end in a batch cut short
 * by the fetch's byte limit, which is not appended. Size limits are the leader's business: a follower refusing a
 * batch its leader accepted would stop replicating the partition for good. Pure: reads the buffer, changes
 * nothing.
 */
public final class ReplicatedBatchValidator {

    /**
     * The whole batches at the head of a replicated set.
     *
     * @param headers    their headers in order, positions relative to the buffer's position
     * @param validBytes how many bytes they take; bytes after them are a partial batch
     */
    public record Validated(List<BatchHeader> headers, int validBytes) {
        public boolean isEmpty() {
            return headers.isEmpty();
        }
    }

    private ReplicatedBatchValidator() {}

    /**
     * Validates the whole batches of {@code records} (position to limit) and returns them; a trailing partial batch
     * is left out.
     *
     * @param logEndOffset the follower's log end offset: the first batch must start at or after it
     * @throws OffsetOverlapException   the first batch starts below {@code logEndOffset}, or a batch does not start
     *                                  after the previous one ends
     * @throws InvalidRecordException   magic other than 2 or an inconsistent header
     * @throws CorruptRecordException   a CRC mismatch
     */
    public static Validated validate(ByteBuffer records, long logEndOffset) {
        int base = records.position();
        int totalBytes = records.remaining();
        List<BatchHeader> headers = new ArrayList<>();
        long nextOffset = logEndOffset;
        int offset = 0;
        while (totalBytes - offset >= LOG_OVERHEAD_BYTES) {
            int start = base + offset;
            int batchLength = records.getInt(start + LENGTH_OFFSET);
            if (batchLength < MIN_BATCH_LENGTH) {
                throw new InvalidRecordException(
                        "Replicated batch at position " + offset + " has invalid length " + batchLength);
            }
            if (totalBytes - offset < LOG_OVERHEAD_BYTES + batchLength) {
                break; // cut by the fetch's byte limit: the next fetch brings it whole
            }
            BatchHeader header = BatchHeader.parse(records, start, offset);
            checkHeader(header, offset);
            long computedCrc = computeCrc(records, start, header.sizeBytes());
            if (computedCrc != header.crc()) {
                throw new CorruptRecordException("Replicated batch at offset " + header.baseOffset() + " has CRC "
                        + header.crc() + " but its bytes give " + computedCrc);
            }
            if (header.baseOffset() < nextOffset) {
                throw new OffsetOverlapException(header.baseOffset(), nextOffset, headers.isEmpty());
            }
            headers.add(header);
            nextOffset = header.nextOffset();
            offset += header.sizeBytes();
        }
        return new Validated(List.copyOf(headers), offset);
    }

    private static void checkHeader(BatchHeader header, int position) {
        String at = "Replicated batch at position " + position;
        if (header.magic() != MAGIC) {
            throw new InvalidRecordException(at + " has magic " + header.magic() + "; only v2 batches are stored");
        }
        if (header.baseOffset() < 0 || header.lastOffsetDelta() < 0) {
            throw new InvalidRecordException(at + " has base offset " + header.baseOffset() + " and lastOffsetDelta "
                    + header.lastOffsetDelta());
        }
        if (header.recordsCount() < 0 || header.recordsCount() > header.lastOffsetDelta() + 1L) {
            throw new InvalidRecordException(at + " has " + header.recordsCount() + " records for "
                    + (header.lastOffsetDelta() + 1L) + " offsets");
        }
        if (header.compressionCodec() > MAX_COMPRESSION_CODEC) {
            throw new InvalidRecordException(at + " has unknown compression codec " + header.compressionCodec());
        }
    }
}
