package io.varve.metadata.record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.apache.kafka.common.Uuid;

/** Appends the primitive encodings of {@link MetadataRecordSerde} to a growable array. */
final class ByteWriter {

    private byte[] bytes;
    private int size;

    ByteWriter() {
        this(64);
    }

    /** With room for {@code initialCapacity} bytes before the array grows. */
    ByteWriter(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    private void ensureCapacity(int extra) {
        if (size + extra > bytes.length) {
            long grown = Math.max((long) bytes.length * 2, (long) size + extra);
            if (grown > Integer.MAX_VALUE - 64) {
                if ((long) size + extra > Integer.MAX_VALUE - 64) {
                    throw new IllegalStateException("more than " + (Integer.MAX_VALUE - 64) + " bytes in one array");
                }
                grown = Integer.MAX_VALUE - 64;
            }
            bytes = Arrays.copyOf(bytes, (int) grown);
        }
    }

    /** CRC32C of the bytes written so far. */
    int crc32c() {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, size);
        return (int) crc.getValue();
    }

    void writeByte(byte value) {
        ensureCapacity(1);
        bytes[size++] = value;
    }

    /** LEB128: 7 bits per byte, least significant first, high bit set on all but the last byte. */
    void writeUnsignedVarLong(long value) {
        ensureCapacity(10);
        long remaining = value;
        while ((remaining & ~0x7FL) != 0) {
            bytes[size++] = (byte) ((remaining & 0x7F) | 0x80);
            remaining >>>= 7;
        }
        bytes[size++] = (byte) remaining;
    }

    /** Zig-zag then LEB128, so small negative numbers stay short. */
    void writeVarLong(long value) {
        writeUnsignedVarLong((value << 1) ^ (value >> 63));
    }

    void writeVarInt(int value) {
        writeVarLong(value);
    }

    void writeUnsignedVarInt(int value) {
        if (value < 0) {
            throw new IllegalArgumentException("negative unsigned value " + value);
        }
        writeUnsignedVarLong(value);
    }

    void writeFixedInt(int value) {
        ensureCapacity(4);
        for (int shift = 24; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    void writeFixedLong(long value) {
        ensureCapacity(8);
        for (int shift = 56; shift >= 0; shift -= 8) {
            bytes[size++] = (byte) (value >>> shift);
        }
    }

    void writeUuid(Uuid uuid) {
        writeFixedLong(uuid.getMostSignificantBits());
        writeFixedLong(uuid.getLeastSignificantBits());
    }

    /** Length + 1 as an unsigned varint (0 = null), then UTF-8 bytes. */
    void writeNullableString(String value) {
        if (value == null) {
            writeUnsignedVarInt(0);
            return;
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        writeUnsignedVarInt(utf8.length + 1);
        ensureCapacity(utf8.length);
        System.arraycopy(utf8, 0, bytes, size, utf8.length);
        size += utf8.length;
    }

    /** Unsigned varint length, then the bytes. */
    void writeBytes(byte[] value) {
        writeUnsignedVarInt(value.length);
        ensureCapacity(value.length);
        System.arraycopy(value, 0, bytes, size, value.length);
        size += value.length;
    }

    void writeString(String value) {
        if (value == null) {
            throw new IllegalArgumentException("null where a string is required");
        }
        writeNullableString(value);
    }

    void writeIntArray(int[] values) {
        writeUnsignedVarInt(values.length);
        for (int value : values) {
            writeVarInt(value);
        }
    }

    /** Count + 1 as an unsigned varint (0 = null), then each element as int. */
    void writeNullableIntArray(int[] values) {
        if (values == null) {
            writeUnsignedVarInt(0);
            return;
        }
        writeUnsignedVarInt(values.length + 1);
        for (int value : values) {
            writeVarInt(value);
        }
    }

    void writeBoolean(boolean value) {
        writeByte(value ? (byte) 1 : (byte) 0);
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, size);
    }

    int size() {
        return size;
    }

    /** Forgets what was written, keeping the array: a scratch writer reused record after record. */
    void reset() {
        size = 0;
    }

    /** Appends what {@code other} holds. */
    void writeAll(ByteWriter other) {
        ensureCapacity(other.size);
        System.arraycopy(other.bytes, 0, bytes, size, other.size);
        size += other.size;
    }

    /** The array written so far, without a copy when it is exactly full (callers must not keep writing). */
    byte[] array() {
        return size == bytes.length ? bytes : toByteArray();
    }
}
