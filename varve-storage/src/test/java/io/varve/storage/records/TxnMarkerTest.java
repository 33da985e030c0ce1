package io.varve.storage.records;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

class TxnMarkerTest {
    private static RecordBatch decode(ByteBuffer batch) {
        return MemoryRecords.readableRecords(batch).batches().iterator().next();
    }

    @Test
    void aMarkerIsOneControlRecordInATransactionalControlBatchOfTheProducer() {
        RecordBatch batch = decode(new TxnMarker(true, 7).batch(42L, (short) 3, 1_000L));
        assertThat(batch.isControlBatch()).isTrue();
        assertThat(batch.isTransactional()).isTrue();
        assertThat(batch.producerId()).isEqualTo(42L);
        assertThat(batch.producerEpoch()).isEqualTo((short) 3);
        Record record = batch.iterator().next();
        EndTransactionMarker marker = EndTransactionMarker.deserialize(record);
        assertThat(marker.controlType()).isEqualTo(ControlRecordType.COMMIT);
        assertThat(marker.coordinatorEpoch()).isEqualTo(7);

        RecordBatch abort = decode(new TxnMarker(false, 7).batch(42L, (short) 3, 1_000L));
        assertThat(EndTransactionMarker.deserialize(abort.iterator().next()).controlType())
                .isEqualTo(ControlRecordType.ABORT);
    }

    @Test
    void aWrittenMarkerReadsBackAsItself() {
        TxnMarker abort = new TxnMarker(false, 9);
        assertThat(TxnMarker.readOrNull(abort.batch(5L, (short) 1, 1_000L))).isEqualTo(abort);
    }
}
