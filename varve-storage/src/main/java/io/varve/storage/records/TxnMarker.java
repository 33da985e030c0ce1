package io.varve.storage.records;

import io.varve.storage.batch.BatchHeader;
import java.nio.ByteBuffer;
import java.util.Iterator;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;

/**
 * A transaction marker: the one control record of a COMMIT or ABORT control batch, decoded with
 * kafka-clients (the key carries the type, the value the coordinator epoch).
 *
 * @param commit           COMMIT (true) or ABORT (false)
 * @param coordinatorEpoch the epoch of the transaction coordinator that wrote it
 */
public record TxnMarker(boolean commit, int coordinatorEpoch) {

    /**
     * The control batch of this marker, exactly as Kafka writes it: transactional and control, of the producer's
     * id and epoch, one COMMIT or ABORT record carrying the coordinator epoch; base offset 0, for the log to assign.
     */
    public ByteBuffer batch(long producerId, short producerEpoch, long timestampMs) {
        EndTransactionMarker marker =
                new EndTransactionMarker(commit ? ControlRecordType.COMMIT : ControlRecordType.ABORT, coordinatorEpoch);
        return MemoryRecords.withEndTransactionMarker(timestampMs, producerId, producerEpoch, marker)
                .buffer();
    }

    /**
     * Decodes the marker of the control batch whose bytes are {@code batch} (position to limit, one batch).
     *
     * @return the marker, or null when the batch is a control batch of another kind or carries no record
     *     (a cleaner may empty a control batch)
     * @throws InvalidRecordException the control record cannot be decoded
     */
    public static TxnMarker readOrNull(ByteBuffer batch) {
        try {
            Iterator<MutableRecordBatch> batches =
                    MemoryRecords.readableRecords(batch.duplicate()).batches().iterator();
            if (!batches.hasNext()) {
                return null;
            }
            Iterator<Record> records = batches.next().iterator();
            if (!records.hasNext()) {
                return null;
            }
            Record record = records.next();
            ControlRecordType type = ControlRecordType.parse(record.key());
            if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
                return null;
            }
            return new TxnMarker(
                    type == ControlRecordType.COMMIT,
                    EndTransactionMarker.deserialize(record).coordinatorEpoch());
        } catch (RuntimeException e) {
            if (e instanceof InvalidRecordException invalid) {
                throw invalid;
            }
            throw new InvalidRecordException("Undecodable control record: " + e.getMessage());
        }
    }

    /**
     * Checks that the batch at {@code header} in {@code batches} is a well-formed transaction marker as a
     * coordinator writes it (transactional, a producer id, exactly one COMMIT or ABORT record) and decodes it.
     *
     * @throws InvalidRecordException it is not
     */
    public static TxnMarker requireMarker(ByteBuffer batches, BatchHeader header) {
        String at = "Control batch at position " + header.position();
        if (!header.isTransactional() || !header.hasProducerId()) {
            throw new InvalidRecordException(at + " must be transactional and carry a producer id");
        }
        if (header.recordsCount() != 1) {
            throw new InvalidRecordException(at + " carries " + header.recordsCount() + " records; a marker has one");
        }
        int start = batches.position() + header.position();
        TxnMarker marker = readOrNull(batches.duplicate()
                .position(start)
                .limit(start + header.sizeBytes())
                .slice());
        if (marker == null) {
            throw new InvalidRecordException(at + " is not a COMMIT or ABORT marker");
        }
        return marker;
    }
}
