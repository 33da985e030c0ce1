package io.varve.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

class TxnMarkerWriterTest {
    @Test
    void aMarkerIsOneControlRecordInATransactionalControlBatchOfTheProducer() {
        MemoryRecords records = TxnMarkerWriter.markerBatch(42L, (short) 3, 7, true, 1_000L);
        RecordBatch batch = records.batches().iterator().next();
        assertThat(batch.isControlBatch()).isTrue();
        assertThat(batch.isTransactional()).isTrue();
        assertThat(batch.producerId()).isEqualTo(42L);
        assertThat(batch.producerEpoch()).isEqualTo((short) 3);
        Record record = batch.iterator().next();
        EndTransactionMarker marker = EndTransactionMarker.deserialize(record);
        assertThat(marker.controlType()).isEqualTo(ControlRecordType.COMMIT);
        assertThat(marker.coordinatorEpoch()).isEqualTo(7);

        RecordBatch abort = TxnMarkerWriter.markerBatch(42L, (short) 3, 7, false, 1_000L)
                .batches()
                .iterator()
                .next();
        assertThat(EndTransactionMarker.deserialize(abort.iterator().next()).controlType())
                .isEqualTo(ControlRecordType.ABORT);
    }
}
