package io.varve.metadata.record;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.kafka.common.Uuid;

/** Appends the primitive encodings of {@link MetadataRecordSerde} to a growable array. */
final class ByteWriter {

    private byte[] bytes = new byte[64];
    private int size;

    private void ensureCapacity(int extra) {
        if (size + extra > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, size + extra));
        }
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
}
