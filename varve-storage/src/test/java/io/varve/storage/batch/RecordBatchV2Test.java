package io.varve.storage.batch;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.TestBatches;
import java.nio.ByteBuffer;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;

class RecordBatchV2Test {

    @Test
    void parsedHeaderMatchesTheReferenceImplementation() {
        ByteBuffer bytes = TestBatches.idempotent(77L, (short) 3, 40, 5);
        MutableRecordBatch reference = TestBatches.batches(bytes).get(0);
        BatchHeader header = BatchHeader.parse(bytes, 0, 0);

        assertThat(header.sizeBytes()).isEqualTo(reference.sizeInBytes());
        assertThat(header.magic()).isEqualTo(reference.magic());
        assertThat(header.crc()).isEqualTo(reference.checksum());
        assertThat(header.lastOffsetDelta()).isEqualTo(4);
        assertThat(header.producerId()).isEqualTo(77L);
        assertThat(header.producerEpoch()).isEqualTo((short) 3);
        assertThat(header.baseSequence()).isEqualTo(40);
        assertThat(header.lastSequence()).isEqualTo(reference.lastSequence());
        assertThat(header.maxTimestamp()).isEqualTo(reference.maxTimestamp());
        assertThat(RecordBatchV2.computeCrc(bytes, 0, header.sizeBytes())).isEqualTo(reference.checksum());
    }

    @Test
    void offsetAndEpochPatchKeepsTheCrcValid() {
        ByteBuffer bytes = TestBatches.batch("a", 3);
        RecordBatchV2.patchOffsetAndEpoch(bytes, 0, 1234L, 9);

        MutableRecordBatch batch = TestBatches.batches(bytes).get(0);
        batch.ensureValid();
        assertThat(batch.baseOffset()).isEqualTo(1234L);
        assertThat(batch.lastOffset()).isEqualTo(1236L);
        assertThat(batch.partitionLeaderEpoch()).isEqualTo(9);
    }

    @Test
    void logAppendTimePatchSetsTypeAndMaxTimestampWithAValidCrc() {
        ByteBuffer bytes = TestBatches.gzipBatch("a", 3);
        RecordBatchV2.patchLogAppendTime(bytes, 0, bytes.remaining(), 42_000L);

        MutableRecordBatch batch = TestBatches.batches(bytes).get(0);
        batch.ensureValid();
        assertThat(batch.timestampType()).isEqualTo(TimestampType.LOG_APPEND_TIME);
        assertThat(batch.maxTimestamp()).isEqualTo(42_000L);
    }

    @Test
    void theBatchHoldingAnOffsetIsFoundByItsHeaderAndAPartialTailIsIgnored() {
        ByteBuffer first = TestBatches.batch("a", 3);
        ByteBuffer second = TestBatches.batch("b", 2);
        RecordBatchV2.patchOffsetAndEpoch(second, 0, 3L, 0);
        ByteBuffer both = TestBatches.concat(first, second);
        ByteBuffer withPartialTail = both.duplicate().limit(both.limit() - 1);

        assertThat(RecordBatchV2.firstBatchEndingAtOrAfter(both, 1L)).isEqualTo(first);
        assertThat(RecordBatchV2.firstBatchEndingAtOrAfter(both, 3L)).isEqualTo(second);
        assertThat(RecordBatchV2.firstBatchEndingAtOrAfter(both, 5L)).isNull();
        assertThat(RecordBatchV2.firstBatchEndingAtOrAfter(withPartialTail, 3L)).isNull();
        assertThat(RecordBatchV2.nextOffsetAfter(both)).isEqualTo(5L);
        assertThat(RecordBatchV2.nextOffsetAfter(withPartialTail)).isEqualTo(3L);
        assertThat(RecordBatchV2.nextOffsetAfter(ByteBuffer.allocate(0))).isEqualTo(-1L);
    }

    @Test
    void sequencesWrapFromIntMaxToZero() {
        assertThat(RecordBatchV2.incrementSequence(5, 3)).isEqualTo(8);
        assertThat(RecordBatchV2.incrementSequence(Integer.MAX_VALUE, 1)).isZero();
        assertThat(RecordBatchV2.incrementSequence(Integer.MAX_VALUE - 1, 4)).isEqualTo(2);
    }
}
