package io.varve.raft.legacy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes a {@link LogBatch} as one self-checking frame. Big-endian layout:
 *
 * <pre>
 *   int32  frameBytes     number of bytes after this field
 *   int32  crc32c         CRC32C of every byte after this field
 *   int8   formatVersion  {@value #FORMAT_VERSION}
 *   int64  baseOffset
 *   int32  epoch
 *   int32  recordCount    &gt;= 1
 *   recordCount times:
 *     int32  payloadBytes
 *     bytes  payload
 * </pre>
 *
 * <p>The whole batch sits under one CRC so that a torn write loses the whole batch, never a part of
 * it: batches the old node appended are atomic on disk as well as to listeners.
 */
public final class BatchFrameCodec {

    public static final byte FORMAT_VERSION = 1;
    /** Size of the {@code frameBytes} field. */
    public static final int LENGTH_FIELD_BYTES = 4;
    /** Bytes after the length field and before the first entry. */
    public static final int HEADER_BYTES = 4 + 1 + 8 + 4 + 4;

    private static final int CRC_FIELD_BYTES = 4;
    private static final int ENTRY_OVERHEAD_BYTES = 4;
    /** Hard upper bound of a frame; larger length fields are corruption, not data. */
    public static final int MAX_FRAME_BYTES = 256 * 1024 * 1024;

    private BatchFrameCodec() {}

    /** Size of the whole frame, length field included. */
    public static int frameSizeInBytes(List<byte[]> payloads) {
        long size = LENGTH_FIELD_BYTES + HEADER_BYTES;
        for (byte[] payload : payloads) {
            size += ENTRY_OVERHEAD_BYTES + payload.length;
        }
        if (size > MAX_FRAME_BYTES) {
            throw new IllegalArgumentException("batch of " + size + " bytes exceeds " + MAX_FRAME_BYTES);
        }
        return (int) size;
    }

    public static ByteBuffer encode(LogBatch batch) {
        int frameSize = frameSizeInBytes(batch.payloads());
        ByteBuffer buffer = ByteBuffer.allocate(frameSize);
        buffer.putInt(frameSize - LENGTH_FIELD_BYTES);
        buffer.putInt(0); // CRC placeholder
        buffer.put(FORMAT_VERSION);
        buffer.putLong(batch.baseOffset());
        buffer.putInt(batch.epoch());
        buffer.putInt(batch.recordCount());
        for (byte[] payload : batch.payloads()) {
            buffer.putInt(payload.length);
            buffer.put(payload);
        }
        int checkedStart = LENGTH_FIELD_BYTES + CRC_FIELD_BYTES;
        buffer.putInt(LENGTH_FIELD_BYTES, crc(buffer, checkedStart, frameSize - checkedStart));
        buffer.flip();
        return buffer;
    }

    /** Checks a length field read from disk; returns the frame body size. */
    public static int checkFrameBytes(int frameBytes) throws CorruptFrameException {
        if (frameBytes < HEADER_BYTES || frameBytes > MAX_FRAME_BYTES - LENGTH_FIELD_BYTES) {
            throw new CorruptFrameException("invalid frame length " + frameBytes);
        }
        return frameBytes;
    }

    /**
     * Decodes a frame body: the {@code frameBytes} bytes following the length field, from the
     * buffer's position to its limit.
     */
    public static LogBatch decode(ByteBuffer body) throws CorruptFrameException {
        int bodyBytes = body.remaining();
        if (bodyBytes < HEADER_BYTES) {
            throw new CorruptFrameException("frame of " + bodyBytes + " bytes is shorter than its header");
        }
        int start = body.position();
        int storedCrc = body.getInt(start);
        int actualCrc = crc(body, start + CRC_FIELD_BYTES, bodyBytes - CRC_FIELD_BYTES);
        if (storedCrc != actualCrc) {
            throw new CorruptFrameException("CRC32C mismatch: stored " + Integer.toHexString(storedCrc) + ", computed "
                    + Integer.toHexString(actualCrc));
        }
        ByteBuffer in = body.duplicate();
        in.position(start + CRC_FIELD_BYTES);
        byte version = in.get();
        if (version != FORMAT_VERSION) {
            throw new CorruptFrameException("unknown frame format version " + version);
        }
        long baseOffset = in.getLong();
        int epoch = in.getInt();
        int recordCount = in.getInt();
        if (baseOffset < 0 || epoch < 0 || recordCount <= 0) {
            throw new CorruptFrameException(
                    "invalid header: baseOffset=" + baseOffset + ", epoch=" + epoch + ", recordCount=" + recordCount);
        }
        List<byte[]> payloads = new ArrayList<>(Math.min(recordCount, in.remaining() / ENTRY_OVERHEAD_BYTES));
        for (int i = 0; i < recordCount; i++) {
            if (in.remaining() < ENTRY_OVERHEAD_BYTES) {
                throw new CorruptFrameException("entry " + i + " of " + recordCount + " is missing");
            }
            int payloadBytes = in.getInt();
            if (payloadBytes < 0 || payloadBytes > in.remaining()) {
                throw new CorruptFrameException(
                        "entry " + i + " declares " + payloadBytes + " bytes, " + in.remaining() + " remain");
            }
            byte[] payload = new byte[payloadBytes];
            in.get(payload);
            payloads.add(payload);
        }
        if (in.hasRemaining()) {
            throw new CorruptFrameException(in.remaining() + " unexpected bytes after the last entry");
        }
        return new LogBatch(baseOffset, epoch, payloads);
    }

    private static int crc(ByteBuffer buffer, int from, int length) {
        CRC32C crc = new CRC32C();
        ByteBuffer slice = buffer.duplicate();
        slice.limit(from + length).position(from);
        crc.update(slice);
        return (int) crc.getValue();
    }
}
