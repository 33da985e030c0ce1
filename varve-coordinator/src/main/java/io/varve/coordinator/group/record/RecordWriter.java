package io.varve.coordinator.group.record;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/** Big-endian primitives, length-prefixed strings and byte arrays (-1 for null). */
final class RecordWriter {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(64);

    RecordWriter writeByte(int v) {
        out.write(v);
        return this;
    }

    RecordWriter writeShort(int v) {
        out.write(v >>> 8);
        out.write(v);
        return this;
    }

    RecordWriter writeInt(int v) {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
        return this;
    }

    RecordWriter writeLong(long v) {
        writeInt((int) (v >>> 32));
        return writeInt((int) v);
    }

    RecordWriter writeString(String s) {
        if (s == null) {
            return writeInt(-1);
        }
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        writeInt(b.length);
        out.writeBytes(b);
        return this;
    }

    RecordWriter writeBytes(byte[] b) {
        if (b == null) {
            return writeInt(-1);
        }
        writeInt(b.length);
        out.writeBytes(b);
        return this;
    }

    RecordWriter writeUuid(Uuid id) {
        writeLong(id.getMostSignificantBits());
        return writeLong(id.getLeastSignificantBits());
    }

    RecordWriter writeStrings(Collection<String> values) {
        writeInt(values.size());
        values.forEach(this::writeString);
        return this;
    }

    /** Topics in id order, partitions ascending: equal assignments always encode to equal bytes. */
    RecordWriter writeAssignment(Map<Uuid, Set<Integer>> assignment) {
        Map<Uuid, Set<Integer>> sorted = new TreeMap<>(assignment);
        writeInt(sorted.size());
        sorted.forEach((topicId, partitions) -> {
            writeUuid(topicId);
            Set<Integer> ps = new TreeSet<>(partitions);
            writeInt(ps.size());
            ps.forEach(this::writeInt);
        });
        return this;
    }

    byte[] toByteArray() {
        return out.toByteArray();
    }
}
