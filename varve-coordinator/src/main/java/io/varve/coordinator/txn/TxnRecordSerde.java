package io.varve.coordinator.txn;

import io.varve.coordinator.group.record.CoordinatorRecord;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * Varve's own binary format for {@code __transaction_state}, big-endian. Key: version (short, 0), transactional id
 * (int length + UTF-8). Value: version (short, 0), producer id, last producer id (longs), epoch, last epoch
 * (shorts), timeout ms (int), state id (byte), partitions (int count, then topic string + int partition each,
 * sorted), transaction start ms, last update ms (longs); from value version 1 the next producer id (long, -1 unless
 * a transactions v2 epoch bump rotates the producer id). Version 0 values are still read. A null value (tombstone) removes the transactional id.
 */
public final class TxnRecordSerde {
    public static final short KEY_VERSION = 0;
    public static final short VALUE_VERSION = 1;

    private TxnRecordSerde() {}

    public static CoordinatorRecord encode(TxnMetadata m) {
        return new CoordinatorRecord(key(m.transactionalId()), value(m));
    }

    public static CoordinatorRecord tombstone(String transactionalId) {
        return new CoordinatorRecord(key(transactionalId), null);
    }

    static byte[] key(String transactionalId) {
        return write(out -> {
            out.writeShort(KEY_VERSION);
            writeString(out, transactionalId);
        });
    }

    static byte[] value(TxnMetadata m) {
        return write(out -> {
            out.writeShort(VALUE_VERSION);
            out.writeLong(m.producerId());
            out.writeLong(m.lastProducerId());
            out.writeShort(m.epoch());
            out.writeShort(m.lastEpoch());
            out.writeInt(m.timeoutMs());
            out.writeByte(m.state().id());
            List<TopicPartition> sorted = m.partitions().stream()
                    .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition))
                    .toList();
            out.writeInt(sorted.size());
            for (TopicPartition tp : sorted) {
                writeString(out, tp.topic());
                out.writeInt(tp.partition());
            }
            out.writeLong(m.txnStartMs());
            out.writeLong(m.lastUpdateMs());
            out.writeLong(m.nextProducerId());
        });
    }

    /** The transactional id of a key. */
    public static String decodeKey(byte[] key) {
        ByteBuffer b = ByteBuffer.wrap(key);
        try {
            short version = b.getShort();
            if (version != KEY_VERSION) {
                throw new IllegalArgumentException("unknown __transaction_state key version " + version);
            }
            return readString(b);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated __transaction_state key", e);
        }
    }

    /** The metadata of a record, or null for a tombstone. */
    public static TxnMetadata decode(CoordinatorRecord record) {
        String transactionalId = decodeKey(record.key());
        if (record.value() == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(record.value());
        try {
            short version = b.getShort();
            if (version != 0 && version != VALUE_VERSION) {
                throw new IllegalArgumentException("unknown __transaction_state value version " + version);
            }
            long producerId = b.getLong();
            long lastProducerId = b.getLong();
            short epoch = b.getShort();
            short lastEpoch = b.getShort();
            int timeoutMs = b.getInt();
            TxnState state = TxnState.fromId(b.get());
            int count = b.getInt();
            if (count < 0 || count > b.remaining()) {
                throw new IllegalArgumentException("invalid partition count " + count);
            }
            Set<TopicPartition> partitions = new HashSet<>();
            for (int i = 0; i < count; i++) {
                partitions.add(new TopicPartition(readString(b), b.getInt()));
            }
            long txnStartMs = b.getLong();
            long lastUpdateMs = b.getLong();
            long nextProducerId = version >= 1 ? b.getLong() : -1;
            return new TxnMetadata(
                    transactionalId,
                    producerId,
                    lastProducerId,
                    epoch,
                    lastEpoch,
                    timeoutMs,
                    state,
                    partitions,
                    txnStartMs,
                    lastUpdateMs,
                    nextProducerId);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated __transaction_state value of " + transactionalId, e);
        }
    }

    private interface Body {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Body body) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            body.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(b.length);
        out.write(b);
    }

    private static String readString(ByteBuffer b) {
        int length = b.getInt();
        if (length < 0 || length > b.remaining()) {
            throw new IllegalArgumentException("invalid string length " + length);
        }
        byte[] out = new byte[length];
        b.get(out);
        return new String(out, StandardCharsets.UTF_8);
    }
}
