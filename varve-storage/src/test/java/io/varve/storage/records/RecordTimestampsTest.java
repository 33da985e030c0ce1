package io.varve.storage.records;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.TestBatches;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.records.RecordTimestamps.RecordTime;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class RecordTimestampsTest {
    private static final long T = TestBatches.CREATE_TIME_MS;

    @Test
    void theFirstRecordAtOrAfterATimeIsFoundInsideACompressedBatch() {
        ByteBuffer batch = TestBatches.gzipBatch("a", 5); // records at T, T+1 … T+4, offsets 0 … 4

        assertThat(RecordTimestamps.firstAtOrAfter(batch, T + 2, 0)).isEqualTo(new RecordTime(T + 2, 2));
        assertThat(RecordTimestamps.firstAtOrAfter(batch, T, 3)).isEqualTo(new RecordTime(T + 3, 3));
        assertThat(RecordTimestamps.firstAtOrAfter(batch, T + 5, 0)).isNull();
        assertThat(RecordTimestamps.firstWithMaxTimestamp(batch)).isEqualTo(new RecordTime(T + 4, 4));
    }

    @Test
    void recordsOfALogAppendTimeBatchCarryTheBatchTimestamp() {
        ByteBuffer batch = TestBatches.batch("a", 3);
        RecordBatchV2.patchLogAppendTime(batch, 0, batch.remaining(), 42_000L);

        assertThat(RecordTimestamps.firstAtOrAfter(batch, 41_000L, 1)).isEqualTo(new RecordTime(42_000L, 1));
        assertThat(RecordTimestamps.firstWithMaxTimestamp(batch)).isEqualTo(new RecordTime(42_000L, 0));
    }

    @Test
    void noBatchNoRecord() {
        assertThat(RecordTimestamps.firstAtOrAfter(ByteBuffer.allocate(0), 0, 0))
                .isNull();
        assertThat(RecordTimestamps.firstWithMaxTimestamp(ByteBuffer.allocate(0)))
                .isNull();
    }
}
