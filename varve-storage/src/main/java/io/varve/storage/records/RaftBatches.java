package io.varve.storage.records;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Entries of the Raft metadata log as uncompressed v2 batches, as KRaft ships them in Fetch responses:
 * each batch's partition leader epoch is the entries' epoch; data entries are records with a value and no
 * key; a control entry (a leader change, a voter set) is a control batch of its own whose one record has
 * the control key of its type. The values are whatever the Raft core stored: Varve's encodings, not
 * Kafka's LeaderChangeMessage or VotersRecord.
 */
public final class RaftBatches {
    /** The fixed header of a v2 batch; the builder grows its buffer past the estimate if it must. */
    private static final int BATCH_HEADER_BYTES = 61;
    /** The control type of a data entry: none. */
    public static final short DATA = -1;
    /** Kafka's control record type of a leader change. */
    public static final short LEADER_CHANGE = ControlRecordType.LEADER_CHANGE.type();
    /** Kafka's control record type of a KRaft voter set (KIP-853). */
    public static final short VOTERS = ControlRecordType.KRAFT_VOTERS.type();

    /** One entry: its offset and epoch, {@link #DATA} or a control type, and its value. */
    public record Entry(long offset, int epoch, short controlType, byte[] value) {}

    private RaftBatches() {}

    /**
     * The entries (dense offsets, epochs never decreasing) as batches: one per run of data entries of one
     * epoch, one per control entry. An empty list gives an empty buffer.
     */
    public static ByteBuffer build(List<Entry> entries) {
        List<ByteBuffer> batches = new ArrayList<>();
        int total = 0;
        int from = 0;
        while (from < entries.size()) {
            Entry first = entries.get(from);
            int to = from + 1;
            if (first.controlType() == DATA) {
                while (to < entries.size()
                        && entries.get(to).controlType() == DATA
                        && entries.get(to).epoch() == first.epoch()) {
                    to++;
                }
            }
            ByteBuffer batch = batch(entries.subList(from, to));
            total += batch.remaining();
            batches.add(batch);
            from = to;
        }
        ByteBuffer out = ByteBuffer.allocate(total);
        batches.forEach(out::put);
        return out.flip();
    }

    private static ByteBuffer batch(List<Entry> run) {
        Entry first = run.get(0);
        boolean control = first.controlType() != DATA;
        int valueBytes = 0;
        for (Entry entry : run) {
            valueBytes += entry.value().length;
        }
        MemoryRecordsBuilder builder = MemoryRecords.builder(
                ByteBuffer.allocate(BATCH_HEADER_BYTES + valueBytes + 32 * run.size()),
                RecordBatch.CURRENT_MAGIC_VALUE,
                Compression.NONE,
                TimestampType.CREATE_TIME,
                first.offset(),
                RecordBatch.NO_TIMESTAMP,
                RecordBatch.NO_PRODUCER_ID,
                RecordBatch.NO_PRODUCER_EPOCH,
                RecordBatch.NO_SEQUENCE,
                false,
                control,
                first.epoch());
        for (Entry entry : run) {
            if (control) {
                builder.appendControlRecord(
                        RecordBatch.NO_TIMESTAMP,
                        ControlRecordType.fromTypeId(entry.controlType()),
                        ByteBuffer.wrap(entry.value()));
            } else {
                builder.appendWithOffset(entry.offset(), RecordBatch.NO_TIMESTAMP, null, entry.value());
            }
        }
        return builder.build().buffer();
    }

    /**
     * The entries of the whole batches from position to limit (a partial batch at the end is ignored, as a
     * fetch may cut one), at most {@code maxEntries}; every batch's CRC is checked.
     *
     * @throws org.apache.kafka.common.errors.CorruptRecordException a batch is malformed or fails its CRC
     */
    public static List<Entry> read(ByteBuffer batches, int maxEntries) {
        List<Entry> out = new ArrayList<>();
        for (MutableRecordBatch batch :
                MemoryRecords.readableRecords(batches.duplicate()).batches()) {
            batch.ensureValid();
            for (Record record : batch) {
                if (out.size() >= maxEntries) {
                    return out;
                }
                short type = batch.isControlBatch() ? ControlRecordType.parseTypeId(record.key()) : DATA;
                byte[] value = new byte[record.hasValue() ? record.valueSize() : 0];
                if (record.hasValue()) {
                    record.value().duplicate().get(value);
                }
                out.add(new Entry(record.offset(), batch.partitionLeaderEpoch(), type, value));
            }
        }
        return out;
    }
}
