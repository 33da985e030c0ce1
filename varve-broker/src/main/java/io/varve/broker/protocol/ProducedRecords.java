package io.varve.broker.protocol;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/**
 * The keys and values of a produce request's records, decompressed, for checks that must look into each record
 * (broker-side schema validation). The buffer itself is not consumed.
 */
public final class ProducedRecords {
    /** Receives each record; {@code key} and {@code value} are null when absent. Returns false to stop. */
    public interface Visitor {
        boolean record(int index, ByteBuffer key, ByteBuffer value);
    }

    private ProducedRecords() {}

    public static void forEach(ByteBuffer records, Visitor visitor) {
        int index = 0;
        for (MutableRecordBatch batch :
                MemoryRecords.readableRecords(records.duplicate()).batches()) {
            if (batch.isControlBatch()) {
                continue;
            }
            for (Record r : batch) {
                if (!visitor.record(index++, r.hasKey() ? r.key() : null, r.hasValue() ? r.value() : null)) {
                    return;
                }
            }
        }
    }
}
