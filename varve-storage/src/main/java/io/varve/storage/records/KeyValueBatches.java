package io.varve.storage.records;

import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Keyed records in uncompressed v2 batches, as the coordinators keep them in their internal topics: built
 * plain or transactional, read back in log order with the transaction markers between them.
 */
public final class KeyValueBatches {

    /** One record: a key and a value (null for a tombstone). */
    public record KeyValue(byte[] key, byte[] value) {}

    /** Receives what {@link #read} finds, in log order. */
    public interface Sink {
        /** A keyed record of a data batch; the arrays are the sink's to keep. */
        void record(BatchInfo batch, byte[] key, byte[] value);

        /** The COMMIT or ABORT marker of a control batch. */
        void marker(BatchInfo batch, boolean commit);
    }

    private KeyValueBatches() {}

    /**
     * One batch of {@code records} stamped {@code timestampMs}, base offset 0 for the log to assign. With
     * {@code producerId} -1 a plain batch without a producer; otherwise a transactional batch of that producer and
     * epoch whose sequences start at {@code baseSequence}.
     */
    public static ByteBuffer build(
            List<KeyValue> records, long timestampMs, long producerId, short producerEpoch, int baseSequence) {
        if (records.isEmpty()) {
            throw new IllegalArgumentException("A batch needs at least one record");
        }
        SimpleRecord[] simple = new SimpleRecord[records.size()];
        for (int i = 0; i < simple.length; i++) {
            simple[i] = new SimpleRecord(
                    timestampMs, records.get(i).key(), records.get(i).value());
        }
        MemoryRecords batch = producerId < 0
                ? MemoryRecords.withRecords(Compression.NONE, simple)
                : MemoryRecords.withTransactionalRecords(
                        Compression.NONE, producerId, producerEpoch, baseSequence, simple);
        return batch.buffer();
    }

    /**
     * Checks the CRC of every whole batch from position to limit of {@code batches} and hands {@code sink} its
     * keyed records (records without a key are skipped) or its transaction marker (other control records are).
     *
     * @return the offset after the last batch, or -1 when there was none
     * @throws org.apache.kafka.common.errors.CorruptRecordException a batch is malformed or its CRC does not match
     */
    public static long read(ByteBuffer batches, Sink sink) {
        long[] nextOffset = {-1};
        StoredBatches.forEach(batches, (stored, index) -> {
            BatchInfo info = stored.info();
            MutableRecordBatch batch = MemoryRecords.readableRecords(stored.bytes())
                    .batches()
                    .iterator()
                    .next();
            batch.ensureValid();
            for (Record record : batch) {
                if (info.control()) {
                    ControlRecordType type =
                            record.hasKey() ? ControlRecordType.parse(record.key()) : ControlRecordType.UNKNOWN;
                    if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                        sink.marker(info, type == ControlRecordType.COMMIT);
                    }
                } else if (record.hasKey()) {
                    sink.record(info, copy(record.key()), record.hasValue() ? copy(record.value()) : null);
                }
            }
            nextOffset[0] = stored.header().nextOffset();
        });
        return nextOffset[0];
    }

    private static byte[] copy(ByteBuffer bytes) {
        byte[] out = new byte[bytes.remaining()];
        bytes.duplicate().get(out);
        return out;
    }
}
