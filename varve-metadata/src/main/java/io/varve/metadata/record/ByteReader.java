package io.varve.metadata.record;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.Uuid;

/** Reads what {@link ByteWriter} wrote; any overrun or malformed value is a format error. */
final class ByteReader {

    private final byte[] bytes;
    private final int end;
    private int position;

    ByteReader(byte[] bytes) {
        this(bytes, 0, bytes.length);
    }

    /** Reads {@code bytes[from, to)} only: a record inside a larger array (a snapshot) without copying it out. */
    ByteReader(byte[] bytes, int from, int to) {
        if (from < 0 || to < from || to > bytes.length) {
            throw new IllegalArgumentException("range [" + from + ", " + to + ") of " + bytes.length + " bytes");
        }
        this.bytes = bytes;
        this.position = from;
        this.end = to;
    }

    private void require(int count) {
        if (count < 0 || end - position < count) {
            throw new MetadataRecordFormatException(
                    "record truncated: need " + count + " bytes at position " + position + " of " + end);
        }
    }

    byte readByte() {
        require(1);
        return bytes[position++];
    }

    long readUnsignedVarLong() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            byte b = readByte();
            value |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new MetadataRecordFormatException("varint longer than 10 bytes at position " + position);
    }

    long readVarLong() {
        long raw = readUnsignedVarLong();
        return (raw >>> 1) ^ -(raw & 1);
    }

    int readVarInt() {
        long value = readVarLong();
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new MetadataRecordFormatException("int out of range: " + value);
        }
        return (int) value;
    }

    int readUnsignedVarInt() {
        long value = readUnsignedVarLong();
        if (value > Integer.MAX_VALUE) {
            throw new MetadataRecordFormatException("length out of range: " + value);
        }
        return (int) value;
    }

    int readFixedInt() {
        require(4);
        int value = 0;
        for (int i = 0; i < 4; i++) {
            value = (value << 8) | (bytes[position++] & 0xFF);
        }
        return value;
    }

    int position() {
        return position;
    }

    /** Skips {@code count} bytes, which must be there. */
    void skip(int count) {
        require(count);
        position += count;
    }

    long readFixedLong() {
        require(8);
        long value = 0;
        for (int i = 0; i < 8; i++) {
            value = (value << 8) | (bytes[position++] & 0xFF);
        }
        return value;
    }

    Uuid readUuid() {
        return new Uuid(readFixedLong(), readFixedLong());
    }

    String readNullableString() {
        int lengthPlusOne = readUnsignedVarInt();
        if (lengthPlusOne == 0) {
            return null;
        }
        int length = lengthPlusOne - 1;
        require(length);
        String value = new String(bytes, position, length, StandardCharsets.UTF_8);
        position += length;
        return value;
    }

    String readString() {
        String value = readNullableString();
        if (value == null) {
            throw new MetadataRecordFormatException("null where a string is required at position " + position);
        }
        return value;
    }

    int[] readIntArray() {
        int count = readUnsignedVarInt();
        require(count); // each element takes at least one byte
        int[] values = new int[count];
        for (int i = 0; i < count; i++) {
            values[i] = readVarInt();
        }
        return values;
    }

    int[] readNullableIntArray() {
        int countPlusOne = readUnsignedVarInt();
        if (countPlusOne == 0) {
            return null;
        }
        int count = countPlusOne - 1;
        require(count);
        int[] values = new int[count];
        for (int i = 0; i < count; i++) {
            values[i] = readVarInt();
        }
        return values;
    }

    short readShort() {
        int value = readVarInt();
        if (value < Short.MIN_VALUE || value > Short.MAX_VALUE) {
            throw new MetadataRecordFormatException("short out of range: " + value);
        }
        return (short) value;
    }

    boolean readBoolean() {
        byte value = readByte();
        if (value != 0 && value != 1) {
            throw new MetadataRecordFormatException("invalid boolean byte " + value);
        }
        return value == 1;
    }

    /** Elements still to read, bounded by the bytes left (each takes at least one byte). */
    byte[] readBytes() {
        int count = readCount();
        byte[] value = new byte[count];
        System.arraycopy(bytes, position, value, 0, count);
        position += count;
        return value;
    }

    int readCount() {
        int count = readUnsignedVarInt();
        require(count);
        return count;
    }

    void ensureFullyRead() {
        if (position != end) {
            throw new MetadataRecordFormatException((end - position) + " unexpected trailing bytes");
        }
    }
}
