package io.varve.broker.group;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import io.varve.coordinator.group.record.CoordinatorRecord;
import io.varve.storage.LogReadResult;
import io.varve.storage.PartitionLog;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * Coordinator records to and from a {@code __consumer_offsets} (or {@code __transaction_state}) partition log, as
 * ordinary v2 record batches.
 */
public final class OffsetsPartitionIo {
    /** Records of one event are split into batches of about this size (well under max.message.bytes). */
    static final int MAX_BATCH_BYTES = 512 * 1024;
    private static final int READ_BYTES = 1024 * 1024;

    private OffsetsPartitionIo() {
    }

    /** Reads every keyed record from the log start to {@code endOffset}, in order. */
    public static long replay(PartitionLog log, long endOffset, Consumer<CoordinatorRecord> sink) {
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
                if (!batch.isControlBatch()) {
                    for (Record r : batch) {
                        if (r.hasKey()) {
                            sink.accept(new CoordinatorRecord(copy(r.key()), r.hasValue() ? copy(r.value()) : null));
                            records++;
                        }
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

    /** The records as batches of at most about {@link #MAX_BATCH_BYTES} each. */
    public static List<MemoryRecords> toBatches(List<CoordinatorRecord> records, long nowMs) {
        List<MemoryRecords> batches = new ArrayList<>();
        List<SimpleRecord> current = new ArrayList<>();
        int bytes = 0;
        for (CoordinatorRecord r : records) {
            int size = r.key().length + (r.value() == null ? 0 : r.value().length) + 32;
            if (!current.isEmpty() && bytes + size > MAX_BATCH_BYTES) {
                batches.add(MemoryRecords.withRecords(Compression.NONE, current.toArray(new SimpleRecord[0])));
                current.clear();
                bytes = 0;
            }
            current.add(new SimpleRecord(nowMs, r.key(), r.value()));
            bytes += size;
        }
        if (!current.isEmpty()) {
            batches.add(MemoryRecords.withRecords(Compression.NONE, current.toArray(new SimpleRecord[0])));
        }
        return batches;
    }
}
