package io.varve.storage.batch;

import static io.varve.storage.batch.RecordBatchV2.*;

import java.nio.ByteBuffer;

/**
 * The fixed header fields of one v2 batch, copied out of a buffer, plus where the batch starts.
 *
 * @param position  where the batch starts in the buffer or file it was read from
 * @param sizeBytes whole batch size, header included (batchLength + 12)
 */
public record BatchHeader(
        int position,
        long baseOffset,
        int sizeBytes,
        int partitionLeaderEpoch,
        byte magic,
        long crc,
        short attributes,
        int lastOffsetDelta,
        long baseTimestamp,
        long maxTimestamp,
        long producerId,
        short producerEpoch,
        int baseSequence,
        int recordsCount) {

    /**
     * Parses the header at {@code start}, reporting it at {@code position}. The caller guarantees
     * {@link RecordBatchV2#HEADER_SIZE_BYTES} readable bytes; field values are not checked here.
     */
    public static BatchHeader parse(ByteBuffer buf, int start, int position) {
        return new BatchHeader(
                position,
                buf.getLong(start + BASE_OFFSET_OFFSET),
                LOG_OVERHEAD_BYTES + buf.getInt(start + LENGTH_OFFSET),
                buf.getInt(start + PARTITION_LEADER_EPOCH_OFFSET),
                buf.get(start + MAGIC_OFFSET),
                Integer.toUnsignedLong(buf.getInt(start + CRC_OFFSET)),
                buf.getShort(start + ATTRIBUTES_OFFSET),
                buf.getInt(start + LAST_OFFSET_DELTA_OFFSET),
                buf.getLong(start + BASE_TIMESTAMP_OFFSET),
                buf.getLong(start + MAX_TIMESTAMP_OFFSET),
                buf.getLong(start + PRODUCER_ID_OFFSET),
                buf.getShort(start + PRODUCER_EPOCH_OFFSET),
                buf.getInt(start + BASE_SEQUENCE_OFFSET),
                buf.getInt(start + RECORDS_COUNT_OFFSET));
    }

    public long lastOffset() {
        return baseOffset + lastOffsetDelta;
    }

    public long nextOffset() {
        return lastOffset() + 1;
    }

    /** Position just after this batch. */
    public int endPosition() {
        return position + sizeBytes;
    }

    public boolean hasProducerId() {
        return producerId != NO_PRODUCER_ID;
    }

    public int lastSequence() {
        return incrementSequence(baseSequence, lastOffsetDelta);
    }

    public int compressionCodec() {
        return attributes & COMPRESSION_CODEC_MASK;
    }

    public boolean isTransactional() {
        return (attributes & TRANSACTIONAL_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes & CONTROL_MASK) != 0;
    }
}
