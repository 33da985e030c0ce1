package io.varve.storage;

import io.varve.storage.batch.RecordBatchV2;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Builds and decodes v2 batches in tests with kafka-clients' reference implementation. */
public final class TestBatches {

    public static final long CREATE_TIME_MS = 1_700_000_000_000L;

    private TestBatches() {}

    /** One uncompressed batch of {@code count} records with values "prefix-0" … */
    public static ByteBuffer batch(String prefix, int count) {
        return MemoryRecords.withRecords(Compression.NONE, records(prefix, count, 0))
                .buffer();
    }

    /** One uncompressed batch whose records carry {@code valueBytes}-byte values. */
    public static ByteBuffer batchOfSize(String prefix, int count, int valueBytes) {
        return MemoryRecords.withRecords(Compression.NONE, records(prefix, count, valueBytes))
                .buffer();
    }

    public static ByteBuffer gzipBatch(String prefix, int count) {
        return MemoryRecords.withRecords(Compression.gzip().build(), records(prefix, count, 0))
                .buffer();
    }

    public static ByteBuffer idempotent(long producerId, short epoch, int baseSequence, int count) {
        return MemoryRecords.withIdempotentRecords(
                        Compression.NONE,
                        producerId,
                        epoch,
                        baseSequence,
                        records("p" + producerId + "-e" + epoch + "-s" + baseSequence, count, 0))
                .buffer();
    }

    /** One batch whose {@code count} records all carry {@code timestampMs}; gzip-compressed if asked. */
    public static ByteBuffer batchAt(String prefix, int count, int valueBytes, long timestampMs, boolean gzip) {
        return MemoryRecords.withRecords(
                        gzip ? Compression.gzip().build() : Compression.NONE,
                        records(prefix, count, valueBytes, timestampMs, false))
                .buffer();
    }

    /** An idempotent batch whose records all carry {@code timestampMs}. */
    public static ByteBuffer idempotentAt(long producerId, short epoch, int baseSequence, int count, long timestampMs) {
        return MemoryRecords.withIdempotentRecords(
                        Compression.NONE,
                        producerId,
                        epoch,
                        baseSequence,
                        records("p" + producerId + "-s" + baseSequence, count, 0, timestampMs, false))
                .buffer();
    }

    /** A transactional batch of {@code count} records with values "prefix-0" … at {@code timestampMs}. */
    public static ByteBuffer transactionalAt(
            long producerId, short epoch, int baseSequence, String prefix, int count, long timestampMs) {
        return MemoryRecords.withTransactionalRecords(
                        Compression.NONE,
                        producerId,
                        epoch,
                        baseSequence,
                        records(prefix, count, 0, timestampMs, false))
                .buffer();
    }

    /** A COMMIT or ABORT marker as a transaction coordinator writes it. */
    public static ByteBuffer marker(
            long producerId, short epoch, int coordinatorEpoch, boolean commit, long timestampMs) {
        return MemoryRecords.withEndTransactionMarker(
                        timestampMs,
                        producerId,
                        epoch,
                        new EndTransactionMarker(
                                commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch))
                .buffer();
    }

    public static ByteBuffer concat(ByteBuffer... parts) {
        int total = 0;
        for (ByteBuffer part : parts) {
            total += part.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(total);
        for (ByteBuffer part : parts) {
            all.put(part.duplicate());
        }
        return all.flip();
    }

    /**
     * A copy of {@code batches} as a leader would have stored and a follower fetches them: consecutive offsets from
     * {@code baseOffset} and partition leader epoch {@code leaderEpoch} (both outside the CRC).
     */
    public static ByteBuffer asReplicated(ByteBuffer batches, long baseOffset, int leaderEpoch) {
        ByteBuffer copy = ByteBuffer.allocate(batches.remaining())
                .put(batches.duplicate())
                .flip();
        long next = baseOffset;
        for (int at = 0; at < copy.limit(); at += RecordBatchV2.sizeBytes(copy, at)) {
            RecordBatchV2.patchOffsetAndEpoch(copy, at, next, leaderEpoch);
            next += copy.getInt(at + RecordBatchV2.LAST_OFFSET_DELTA_OFFSET) + 1;
        }
        return copy;
    }

    /** The batches in {@code bytes}, parsed by kafka-clients (which also checks they are whole). */
    public static List<MutableRecordBatch> batches(ByteBuffer bytes) {
        List<MutableRecordBatch> out = new ArrayList<>();
        MemoryRecords.readableRecords(bytes.duplicate()).batches().forEach(out::add);
        return out;
    }

    /** Every record's offset and value, in order; each batch's CRC is checked on the way. */
    public static List<String> offsetsAndValues(ByteBuffer bytes) {
        List<String> out = new ArrayList<>();
        for (MutableRecordBatch batch : batches(bytes)) {
            batch.ensureValid();
            for (Record record : batch) {
                out.add(record.offset() + ":" + StandardCharsets.UTF_8.decode(record.value()));
            }
        }
        return out;
    }

    private static SimpleRecord[] records(String prefix, int count, int valueBytes) {
        return records(prefix, count, valueBytes, CREATE_TIME_MS, true);
    }

    private static SimpleRecord[] records(
            String prefix, int count, int valueBytes, long timestampMs, boolean increasing) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            String value = prefix + "-" + i;
            if (valueBytes > value.length()) {
                value = value + "x".repeat(valueBytes - value.length());
            }
            records[i] = new SimpleRecord(
                    increasing ? timestampMs + i : timestampMs, null, value.getBytes(StandardCharsets.UTF_8));
        }
        return records;
    }
}
