package io.varve.raft.core.store;

import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One log entry on disk, self-checking. Big-endian:
 *
 * <pre>
 *   int32  frameBytes   bytes after this field
 *   int32  crc32c       CRC32C of every byte after this field
 *   int8   version      {@value #VERSION}
 *   int64  offset
 *   int32  epoch
 *   int8   type         0 data, 1 leader change, 2 voters
 *   bytes  payload      frameBytes - {@value #BODY_HEADER_BYTES}
 * </pre>
 *
 * <p>A CRC per entry means a torn write loses whole entries only, and a flipped bit names the entry.
 */
final class EntryFrame {
    static final byte VERSION = 1;
    static final int LENGTH_BYTES = 4;
    /** Bytes after the length field and before the payload. */
    static final int BODY_HEADER_BYTES = 4 + 1 + 8 + 4 + 1;
    /** A length field above this is corruption, not data. */
    static final int MAX_FRAME_BYTES = 64 * 1024 * 1024;

    private EntryFrame() {}

    static int sizeBytes(LogEntry entry) {
        long size = (long) LENGTH_BYTES + BODY_HEADER_BYTES + entry.payload().length;
        if (size > MAX_FRAME_BYTES) {
            throw new IllegalArgumentException("entry " + entry + " exceeds " + MAX_FRAME_BYTES + " bytes on disk");
        }
        return (int) size;
    }

    /** Appends the frame of {@code entry} to {@code out} (which has room for {@link #sizeBytes}). */
    static void encode(LogEntry entry, ByteBuffer out) {
        int start = out.position();
        out.putInt(BODY_HEADER_BYTES + entry.payload().length);
        out.putInt(0); // the CRC, filled in below
        out.put(VERSION);
        out.putLong(entry.offset());
        out.putInt(entry.epoch());
        out.put(typeCode(entry.type()));
        out.put(entry.payload());
        int checkedFrom = start + LENGTH_BYTES + 4;
        out.putInt(start + LENGTH_BYTES, crc(out, checkedFrom, out.position() - checkedFrom));
    }

    /** Whether a length field read from disk can be a frame's. */
    static boolean plausibleLength(int frameBytes) {
        return frameBytes >= BODY_HEADER_BYTES && frameBytes <= MAX_FRAME_BYTES - LENGTH_BYTES;
    }

    /**
     * Decodes a frame body (the {@code frameBytes} after the length field, position to limit), or returns
     * null when its CRC, version or fields are wrong.
     */
    static LogEntry decodeOrNull(ByteBuffer body) {
        int start = body.position();
        int length = body.remaining();
        if (length < BODY_HEADER_BYTES || body.getInt(start) != crc(body, start + 4, length - 4)) {
            return null;
        }
        ByteBuffer in = body.duplicate();
        in.position(start + 4);
        byte version = in.get();
        long offset = in.getLong();
        int epoch = in.getInt();
        byte type = in.get();
        if (version != VERSION || offset < 0 || epoch < 0 || type < 0 || type > 2) {
            return null;
        }
        byte[] payload = new byte[in.remaining()];
        in.get(payload);
        return new LogEntry(offset, epoch, typeOf(type), payload);
    }

    private static byte typeCode(EntryType type) {
        return switch (type) {
            case DATA -> 0;
            case LEADER_CHANGE -> 1;
            case VOTERS -> 2;
        };
    }

    private static EntryType typeOf(byte code) {
        return switch (code) {
            case 0 -> EntryType.DATA;
            case 1 -> EntryType.LEADER_CHANGE;
            default -> EntryType.VOTERS;
        };
    }

    private static int crc(ByteBuffer buffer, int from, int length) {
        CRC32C crc = new CRC32C();
        ByteBuffer slice = buffer.duplicate();
        slice.limit(from + length).position(from);
        crc.update(slice);
        return (int) crc.getValue();
    }
}
