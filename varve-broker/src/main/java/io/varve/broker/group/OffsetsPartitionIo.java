package io.varve.broker.group;

import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.coordinator.runtime.Outbox;
import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.records.BatchInfo;
import io.varve.storage.records.KeyValueBatches;
import io.varve.storage.records.KeyValueBatches.KeyValue;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

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
            long[] recordsRead = {0};
            long next = KeyValueBatches.read(bytes, new KeyValueBatches.Sink() {
                @Override
                public void record(BatchInfo batch, byte[] key, byte[] value) {
                    sink.record(
                            new CoordinatorRecord(key, value),
                            batch.transactional() ? batch.producerId() : Outbox.NO_PRODUCER_ID);
                    recordsRead[0]++;
                }

                @Override
                public void marker(BatchInfo batch, boolean commit) {
                    sink.marker(batch.producerId(), commit);
                }
            });
            records += recordsRead[0];
            if (next <= offset) {
                throw new IllegalStateException(log.topicPartition() + ": replay made no progress at offset " + offset);
            }
            offset = next;
        }
        return records;
    }

    /** The records as plain batches of at most about {@link #MAX_BATCH_BYTES} each. */
    public static List<ByteBuffer> toBatches(List<CoordinatorRecord> records, long nowMs) {
        return toBatches(records, nowMs, Outbox.NO_PRODUCER_ID, (short) -1, -1);
    }

    /**
     * The records as batches of at most about {@link #MAX_BATCH_BYTES} each; with a producer id, transactional
     * batches of that producer and epoch whose sequences continue from {@code baseSequence}.
     */
    public static List<ByteBuffer> toBatches(
            List<CoordinatorRecord> records, long nowMs, long producerId, short producerEpoch, int baseSequence) {
        List<ByteBuffer> batches = new ArrayList<>();
        List<KeyValue> current = new ArrayList<>();
        int bytes = 0;
        int sequence = baseSequence;
        for (CoordinatorRecord r : records) {
            int size = r.key().length + (r.value() == null ? 0 : r.value().length) + 32;
            if (!current.isEmpty() && bytes + size > MAX_BATCH_BYTES) {
                batches.add(KeyValueBatches.build(current, nowMs, producerId, producerEpoch, sequence));
                sequence = RecordBatchV2.incrementSequence(sequence, current.size());
                current.clear();
                bytes = 0;
            }
            current.add(new KeyValue(r.key(), r.value()));
            bytes += size;
        }
        if (!current.isEmpty()) {
            batches.add(KeyValueBatches.build(current, nowMs, producerId, producerEpoch, sequence));
        }
        return batches;
    }
}
