package io.varve.broker.protocol;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * The record sets of the generated messages' {@code records} fields (produce in, fetch out), as plain bytes
 * for the rest of the broker; with {@link FileSliceRecords} and {@link ResponseWriter} the only broker code
 * that names kafka-clients' record classes.
 */
public final class WireRecords {

    private WireRecords() {}

    /** No records: what a fetch answers for a partition it has nothing (or an error) for. */
    public static BaseRecords empty() {
        return MemoryRecords.EMPTY;
    }

    /** Whole batches from position to limit of {@code batches}, sent as they are. */
    public static BaseRecords of(ByteBuffer batches) {
        return MemoryRecords.readableRecords(batches);
    }

    /**
     * The bytes of the batches a request carries (a duplicate: position and limit are the caller's to move), or
     * null when it carries none.
     */
    public static ByteBuffer bytesOrNull(BaseRecords records) {
        if (!(records instanceof MemoryRecords memory) || memory.sizeInBytes() == 0) {
            return null;
        }
        return memory.buffer().duplicate();
    }
}
