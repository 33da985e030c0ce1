package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Keyed batches for compaction tests, built and decoded with kafka-clients' reference implementation:
 * records are given as "key=value" ("key=" with nothing after for a tombstone, "=value" for no key).
 */
public final class KeyedBatches {

    /** One record as a reader sees it; value null for a tombstone, key null for a keyless record. */
    public record Rec(long offset, String key, String value) {
        @Override
        public String toString() {
            return offset + ":" + key + "=" + value;
        }
    }

    private KeyedBatches() {}

    public static ByteBuffer batch(Compression compression, long timestampMs, String... keyValues) {
        return MemoryRecords.withRecords(compression, records(timestampMs, keyValues))
                .buffer();
    }

    public static ByteBuffer batch(long timestampMs, String... keyValues) {
        return batch(Compression.NONE, timestampMs, keyValues);
    }

    public static ByteBuffer idempotent(
            long producerId, short epoch, int baseSequence, long timestampMs, String... keyValues) {
        return MemoryRecords.withIdempotentRecords(
                        Compression.NONE, producerId, epoch, baseSequence, records(timestampMs, keyValues))
                .buffer();
    }

    public static ByteBuffer transactional(
            long producerId, short epoch, int baseSequence, long timestampMs, String... keyValues) {
        return MemoryRecords.withTransactionalRecords(
                        Compression.NONE, producerId, epoch, baseSequence, records(timestampMs, keyValues))
                .buffer();
    }

    public static SimpleRecord[] records(long timestampMs, String... keyValues) {
        SimpleRecord[] records = new SimpleRecord[keyValues.length];
        for (int i = 0; i < keyValues.length; i++) {
            int eq = keyValues[i].indexOf('=');
            String key = keyValues[i].substring(0, eq);
            String value = keyValues[i].substring(eq + 1);
            records[i] = new SimpleRecord(
                    timestampMs, key.isEmpty() ? null : bytes(key), value.isEmpty() ? null : bytes(value));
        }
        return records;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The batches in {@code bytes}, each CRC-checked. */
    public static List<MutableRecordBatch> batches(ByteBuffer bytes) {
        List<MutableRecordBatch> out = new ArrayList<>();
        for (MutableRecordBatch batch :
                MemoryRecords.readableRecords(bytes.duplicate()).batches()) {
            batch.ensureValid();
            out.add(batch);
        }
        return out;
    }

    public static List<Rec> records(ByteBuffer bytes) {
        List<Rec> out = new ArrayList<>();
        for (MutableRecordBatch batch : batches(bytes)) {
            for (Record record : batch) {
                out.add(new Rec(record.offset(), string(record.key()), string(record.value())));
            }
        }
        return out;
    }

    /** Every batch of the log from its start, read the way a consumer fetches. */
    public static List<MutableRecordBatch> readBatches(PartitionLog log) {
        List<MutableRecordBatch> all = new ArrayList<>();
        long next = log.logStartOffset();
        for (int reads = 0; next < log.logEndOffset(); reads++) {
            assertThat(reads).as("reads of %s", log.dir()).isLessThan(1_000_000);
            ByteBuffer bytes = log.read(next, 64 * 1024, Long.MAX_VALUE, true).records();
            if (!bytes.hasRemaining()) {
                break;
            }
            List<MutableRecordBatch> batches = batches(bytes);
            all.addAll(batches);
            next = batches.get(batches.size() - 1).nextOffset();
        }
        return all;
    }

    /** Every record of the log from its start. */
    public static List<Rec> readAll(PartitionLog log) {
        List<Rec> out = new ArrayList<>();
        for (MutableRecordBatch batch : readBatches(log)) {
            for (Record record : batch) {
                out.add(new Rec(record.offset(), string(record.key()), string(record.value())));
            }
        }
        return out;
    }

    private static String string(ByteBuffer bytes) {
        return bytes == null
                ? null
                : StandardCharsets.UTF_8.decode(bytes.duplicate()).toString();
    }
}
