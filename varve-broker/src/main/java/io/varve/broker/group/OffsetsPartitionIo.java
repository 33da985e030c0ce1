package io.varve.broker.group;

import io.varve.coordinator.group.Outbox;
import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import io.varve.storage.batch.RecordBatchV2;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;

/**
 * Coordinator records to and from a {@code __consumer_offsets} (or {@code __transaction_state}) partition log, as
 * ordinary v2 record batches; transactional offsets (TxnOffsetCommit) as transactional batches of their producer,
 * followed later in the log by the transaction's COMMIT or ABORT marker.
 */
public final class OffsetsPartitionIo {
    /** What a replay hands over, in log order. */
    public interface ReplaySink {
        /** A keyed record; {@code producerId} is its transactional producer, or {@link Outbox#NO_PRODUCER_ID}. */
        void record(CoordinatorRecord record, long producerId);

        /** A transaction marker of the producer. */
        void marker(long producerId, boolean commit);
    }

    /** Records of one event are split into batches of about this size (well under max.message.bytes). */
    static final int MAX_BATCH_BYTES = 512 * 1024;

    private static final int READ_BYTES = 1024 * 1024;

    private OffsetsPartitionIo() {}

    /** Reads every keyed record from the log start to {@code endOffset}, in order; for logs without transactions. */
    public static long replay(PartitionLog log, long endOffset, Consumer<CoordinatorRecord> sink) {
        return replay(log, endOffset, new ReplaySink() {
            @Override
            public void record(CoordinatorRecord record, long producerId) {
                if (producerId != Outbox.NO_PRODUCER_ID) {
                    throw new IllegalStateException(log.topicPartition() + " holds a transactional record");
                }
                sink.accept(record);
            }

            @Override
            public void marker(long producerId, boolean commit) {
                throw new IllegalStateException(log.topicPartition() + " holds a transaction marker");
            }
        });
    }

    /** Reads every keyed record and transaction marker from the log start to {@code endOffset}, in order. */
    public static long replay(PartitionLog log, long endOffset, ReplaySink sink) {
        long offset = log.logStartOffset();
        long records = 0;
        while (offset < endOffset) {
            LogReadResult read = log.read(offset, READ_BYTES, endOffset, true);
            ByteBuffer bytes = read.records();
            if (!bytes.hasRemaining()) {
                break;
            }
            long next = offset;
            for (RecordBatch batch : MemoryRecords.readableRecords(bytes).batches()) {
                batch.ensureValid();
                long producerId = batch.isTransactional() ? batch.producerId() : Outbox.NO_PRODUCER_ID;
                for (Record r : batch) {
                    if (batch.isControlBatch()) {
                        ControlRecordType type =
                                r.hasKey() ? ControlRecordType.parse(r.key()) : ControlRecordType.UNKNOWN;
                        if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT) {
                            sink.marker(batch.producerId(), type == ControlRecordType.COMMIT);
                        }
                    } else if (r.hasKey()) {
                        sink.record(
                                new CoordinatorRecord(copy(r.key()), r.hasValue() ? copy(r.value()) : null),
                                producerId);
                        records++;
                    }
                }
                next = batch.nextOffset();
            }
            if (next <= offset) {
                throw new IllegalStateException(log.topicPartition() + ": replay made no progress at offset " + offset);
            }
            offset = next;
        }
        return records;
    }

    private static byte[] copy(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** The records as plain batches of at most about {@link #MAX_BATCH_BYTES} each. */
    public static List<MemoryRecords> toBatches(List<CoordinatorRecord> records, long nowMs) {
        return toBatches(records, nowMs, Outbox.NO_PRODUCER_ID, (short) -1, -1);
    }

    /**
     * The records as batches of at most about {@link #MAX_BATCH_BYTES} each; with a producer id, transactional
     * batches of that producer and epoch whose sequences continue from {@code baseSequence}.
     */
    public static List<MemoryRecords> toBatches(
            List<CoordinatorRecord> records, long nowMs, long producerId, short producerEpoch, int baseSequence) {
        List<MemoryRecords> batches = new ArrayList<>();
        List<SimpleRecord> current = new ArrayList<>();
        int bytes = 0;
        int sequence = baseSequence;
        for (CoordinatorRecord r : records) {
            int size = r.key().length + (r.value() == null ? 0 : r.value().length) + 32;
            if (!current.isEmpty() && bytes + size > MAX_BATCH_BYTES) {
                batches.add(batch(current, producerId, producerEpoch, sequence));
                sequence = RecordBatchV2.incrementSequence(sequence, current.size());
                current.clear();
                bytes = 0;
            }
            current.add(new SimpleRecord(nowMs, r.key(), r.value()));
            bytes += size;
        }
        if (!current.isEmpty()) {
            batches.add(batch(current, producerId, producerEpoch, sequence));
        }
        return batches;
    }

    private static MemoryRecords batch(
            List<SimpleRecord> records, long producerId, short producerEpoch, int baseSequence) {
        SimpleRecord[] array = records.toArray(new SimpleRecord[0]);
        return producerId == Outbox.NO_PRODUCER_ID
                ? MemoryRecords.withRecords(Compression.NONE, array)
                : MemoryRecords.withTransactionalRecords(
                        Compression.NONE, producerId, producerEpoch, baseSequence, array);
    }
}
