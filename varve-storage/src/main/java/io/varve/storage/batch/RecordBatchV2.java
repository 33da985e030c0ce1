package io.varve.storage.batch;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.apache.kafka.common.errors.CorruptRecordException;

/**
 * Layout of the 61-byte v2 record-batch header (big-endian) and the in-place patches the log applies.
 * All methods take absolute positions and never move the buffer's position or limit.
 */
public final class RecordBatchV2 {

    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int LENGTH_OFFSET = 8;
    /** Bytes of baseOffset + batchLength, which batchLength does not count. */
    public static final int LOG_OVERHEAD_BYTES = 12;

    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORDS_COUNT_OFFSET = 57;
    public static final int HEADER_SIZE_BYTES = 61;
    /** Smallest legal value of the batchLength field: a header with no records. */
    public static final int MIN_BATCH_LENGTH = HEADER_SIZE_BYTES - LOG_OVERHEAD_BYTES;

    public static final byte MAGIC = 2;
    public static final long NO_PRODUCER_ID = -1L;
    /** Timestamp of a record or batch that has none. */
    public static final long NO_TIMESTAMP = -1L;

    public static final int NO_PARTITION_LEADER_EPOCH = -1;

    public static final int COMPRESSION_CODEC_MASK = 0x07;
    /** Highest codec id Kafka defines (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd). */
    public static final int MAX_COMPRESSION_CODEC = 4;

    public static final int TIMESTAMP_TYPE_MASK = 0x08;
    public static final int TRANSACTIONAL_MASK = 0x10;
    public static final int CONTROL_MASK = 0x20;

    private RecordBatchV2() {}

    /** Total bytes of the batch starting at {@code start}, header included. */
    public static int sizeBytes(ByteBuffer buf, int start) {
        return LOG_OVERHEAD_BYTES + buf.getInt(start + LENGTH_OFFSET);
    }

    /** CRC-32C of the bytes the batch's crc field covers: from attributes to the end of the batch. */
    public static long computeCrc(ByteBuffer buf, int start, int sizeBytes) {
        CRC32C crc = new CRC32C();
        ByteBuffer covered = buf.duplicate();
        covered.limit(start + sizeBytes).position(start + ATTRIBUTES_OFFSET);
        crc.update(covered);
        return crc.getValue();
    }

    public static long storedCrc(ByteBuffer buf, int start) {
        return Integer.toUnsignedLong(buf.getInt(start + CRC_OFFSET));
    }

    /** Sets baseOffset and partitionLeaderEpoch; both lie outside the CRC, so the checksum stays valid. */
    public static void patchOffsetAndEpoch(ByteBuffer buf, int start, long baseOffset, int partitionLeaderEpoch) {
        buf.putLong(start + BASE_OFFSET_OFFSET, baseOffset);
        buf.putInt(start + PARTITION_LEADER_EPOCH_OFFSET, partitionLeaderEpoch);
    }

    /** Stamps LogAppendTime: maxTimestamp = nowMs and the timestamp-type bit, then recomputes the CRC. */
    public static void patchLogAppendTime(ByteBuffer buf, int start, int sizeBytes, long nowMs) {
        short attributes = buf.getShort(start + ATTRIBUTES_OFFSET);
        buf.putShort(start + ATTRIBUTES_OFFSET, (short) (attributes | TIMESTAMP_TYPE_MASK));
        buf.putLong(start + MAX_TIMESTAMP_OFFSET, nowMs);
        buf.putInt(start + CRC_OFFSET, (int) computeCrc(buf, start, sizeBytes));
    }

    /**
     * The bytes (a slice, position 0) of the first whole batch from position to limit of {@code batches} whose
     * last offset is at least {@code offset}, or null when none is. A partial batch at the end is not looked at.
     */
    public static ByteBuffer firstBatchEndingAtOrAfter(ByteBuffer batches, long offset) {
        for (int at = batches.position(); isWholeBatchAt(batches, at); at += sizeBytes(batches, at)) {
            if (lastOffset(batches, at) >= offset) {
                return batches.duplicate()
                        .position(at)
                        .limit(at + sizeBytes(batches, at))
                        .slice();
            }
        }
        return null;
    }

    /** The offset after the last whole batch from position to limit of {@code batches}, or -1 when there is none. */
    public static long nextOffsetAfter(ByteBuffer batches) {
        long next = -1;
        for (int at = batches.position(); isWholeBatchAt(batches, at); at += sizeBytes(batches, at)) {
            next = lastOffset(batches, at) + 1;
        }
        return next;
    }

    private static long lastOffset(ByteBuffer buf, int start) {
        return buf.getLong(start + BASE_OFFSET_OFFSET) + buf.getInt(start + LAST_OFFSET_DELTA_OFFSET);
    }

    /**
     * A whole batch starts at {@code start}: its header and as many bytes as its length field says lie before
     * the limit.
     *
     * @throws CorruptRecordException the length field is too small for a v2 header
     */
    private static boolean isWholeBatchAt(ByteBuffer buf, int start) {
        if (buf.limit() - start < HEADER_SIZE_BYTES) {
            return false;
        }
        int sizeBytes = sizeBytes(buf, start);
        if (sizeBytes < HEADER_SIZE_BYTES) {
            throw new CorruptRecordException("Batch at position " + start + " claims " + sizeBytes + " bytes");
        }
        return sizeBytes <= buf.limit() - start;
    }

    /**
     * Sequence number {@code increment} steps after {@code sequence}; sequences wrap from
     * Integer.MAX_VALUE to 0.
     */
    public static int incrementSequence(int sequence, int increment) {
        return (int) (((long) sequence + increment) % (1L << 31));
    }
}
