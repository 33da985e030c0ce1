package io.varve.coordinator.group.record;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/** Reads what {@link RecordWriter} wrote; any inconsistency is a {@link CorruptRecordException}. */
final class RecordReader {
    private final ByteBuffer buf;

    RecordReader(byte[] bytes) {
        this.buf = ByteBuffer.wrap(bytes);
    }

    byte readByte() {
        return guard(buf::get);
    }

    short readShort() {
        return guard(buf::getShort);
    }

    int readInt() {
        return guard(buf::getInt);
    }

    long readLong() {
        return guard(buf::getLong);
    }

    String readString() {
        byte[] b = readBytes();
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    byte[] readBytes() {
        int len = readLength();
        if (len < 0) {
            return null;
        }
        byte[] b = new byte[len];
        guard(() -> buf.get(b));
        return b;
    }

    Uuid readUuid() {
        return new Uuid(readLong(), readLong());
    }

    List<String> readStrings() {
        int n = readCount();
        List<String> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            values.add(readString());
        }
        return values;
    }

    Map<Uuid, Set<Integer>> readAssignment() {
        int topics = readCount();
        Map<Uuid, Set<Integer>> a = new HashMap<>();
        for (int t = 0; t < topics; t++) {
            Uuid id = readUuid();
            int n = readCount();
            Set<Integer> ps = new HashSet<>();
            for (int i = 0; i < n; i++) {
                ps.add(readInt());
            }
            a.put(id, ps);
        }
        return a;
    }

    /** A count of items, each at least one byte: larger than what is left means corruption. */
    int readCount() {
        int n = readInt();
        if (n < 0 || n > buf.remaining()) {
            throw new CorruptRecordException("count " + n + " with " + buf.remaining() + " bytes left");
        }
        return n;
    }

    private int readLength() {
        int n = readInt();
        if (n < -1 || n > buf.remaining()) {
            throw new CorruptRecordException("length " + n + " with " + buf.remaining() + " bytes left");
        }
        return n;
    }

    void expectEnd() {
        if (buf.hasRemaining()) {
            throw new CorruptRecordException(buf.remaining() + " unread bytes at the end of a record");
        }
    }

    private static <T> T guard(java.util.function.Supplier<T> read) {
        try {
            return read.get();
        } catch (BufferUnderflowException e) {
            throw new CorruptRecordException("record ends early");
        }
    }
}
