package io.varve.storage.batch;

import static io.varve.storage.batch.RecordBatchV2.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.TestBatches;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

class ProduceBatchValidatorTest {

    private static final int MAX_MESSAGE_BYTES = 1 << 20;
    private static final long SEGMENT_BYTES = 1 << 30;

    private static List<BatchHeader> validate(ByteBuffer records) {
        return ProduceBatchValidator.validate(records, MAX_MESSAGE_BYTES, SEGMENT_BYTES);
    }

    /** Rewrites the CRC after a test edits bytes the CRC covers, so only the intended check can fail. */
    private static void fixCrc(ByteBuffer batch) {
        batch.putInt(CRC_OFFSET, (int) computeCrc(batch, 0, sizeBytes(batch, 0)));
    }

    @Test
    void acceptsSeveralBatchesAndReportsTheirHeadersInOrder() {
        ByteBuffer first = TestBatches.batch("a", 3);
        ByteBuffer second = TestBatches.gzipBatch("b", 2);
        List<BatchHeader> headers = validate(TestBatches.concat(first, second));

        assertThat(headers).hasSize(2);
        assertThat(headers.get(0).position()).isZero();
        assertThat(headers.get(0).recordsCount()).isEqualTo(3);
        assertThat(headers.get(1).position()).isEqualTo(first.remaining());
        assertThat(headers.get(1).compressionCodec()).isEqualTo(1);
        assertThat(headers.get(1).lastOffsetDelta()).isEqualTo(1);
    }

    @Test
    void positionsAreRelativeToTheBufferPosition() {
        ByteBuffer batch = TestBatches.batch("a", 1);
        ByteBuffer padded = ByteBuffer.allocate(batch.remaining() + 5);
        padded.position(5);
        padded.put(batch.duplicate()).position(5);

        assertThat(validate(padded).get(0).position()).isZero();
        assertThat(padded.position()).isEqualTo(5);
    }

    @Test
    void rejectsEmptyInput() {
        assertThatThrownBy(() -> validate(ByteBuffer.allocate(0))).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void rejectsMagicOtherThanTwo() {
        ByteBuffer batch = TestBatches.batch("a", 1);
        batch.put(MAGIC_OFFSET, (byte) 1);
        assertThatThrownBy(() -> validate(batch))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("magic");
    }

    @Test
    void rejectsBatchLengthShorterThanAHeader() {
        ByteBuffer batch = TestBatches.batch("a", 1);
        batch.putInt(LENGTH_OFFSET, 10);
        assertThatThrownBy(() -> validate(batch)).isInstanceOf(InvalidRecordException.class);
        batch.putInt(LENGTH_OFFSET, -5);
        assertThatThrownBy(() -> validate(batch)).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void rejectsNegativeLastOffsetDelta() {
        ByteBuffer batch = TestBatches.batch("a", 1);
        batch.putInt(LAST_OFFSET_DELTA_OFFSET, -1);
        fixCrc(batch);
        assertThatThrownBy(() -> validate(batch)).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void rejectsRecordsCountThatDisagreesWithLastOffsetDelta() {
        ByteBuffer batch = TestBatches.batch("a", 3);
        batch.putInt(RECORDS_COUNT_OFFSET, 2);
        fixCrc(batch);
        assertThatThrownBy(() -> validate(batch)).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void rejectsControlBatchesFromClients() {
        ByteBuffer batch = TestBatches.batch("a", 1);
        batch.putShort(ATTRIBUTES_OFFSET, (short) (batch.getShort(ATTRIBUTES_OFFSET) | CONTROL_MASK));
        fixCrc(batch);
        assertThatThrownBy(() -> validate(batch)).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void rejectsUnknownCompressionCodec() {
        ByteBuffer batch = TestBatches.batch("a", 1);
        batch.putShort(ATTRIBUTES_OFFSET, (short) (batch.getShort(ATTRIBUTES_OFFSET) | 0x07));
        fixCrc(batch);
        assertThatThrownBy(() -> validate(batch)).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void rejectsCrcMismatchAsCorrupt() {
        ByteBuffer batch = TestBatches.batch("a", 2);
        int last = batch.limit() - 1;
        batch.put(last, (byte) (batch.get(last) ^ 0x5A));
        assertThatThrownBy(() -> validate(batch))
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("CRC");
    }

    @Test
    void rejectsTrailingPartialBatchAsCorrupt() {
        ByteBuffer whole = TestBatches.batch("a", 2);
        ByteBuffer partial = TestBatches.concat(whole, whole.duplicate().limit(whole.remaining() - 3));
        assertThatThrownBy(() -> validate(partial)).isInstanceOf(CorruptRecordException.class);

        ByteBuffer fewBytes = TestBatches.concat(whole, ByteBuffer.wrap(new byte[7]));
        assertThatThrownBy(() -> validate(fewBytes)).isInstanceOf(CorruptRecordException.class);
    }

    @Test
    void rejectsBatchLargerThanMaxMessageBytes() {
        ByteBuffer batch = TestBatches.batchOfSize("a", 1, 500);
        assertThatThrownBy(() -> ProduceBatchValidator.validate(batch, batch.remaining() - 1, SEGMENT_BYTES))
                .isInstanceOf(RecordTooLargeException.class);
        assertThat(ProduceBatchValidator.validate(batch, batch.remaining(), SEGMENT_BYTES))
                .hasSize(1);
    }

    @Test
    void rejectsRecordSetLargerThanTheSegment() {
        ByteBuffer batch = TestBatches.batch("a", 1);
        ByteBuffer two = TestBatches.concat(batch, batch);
        assertThatThrownBy(() -> ProduceBatchValidator.validate(two, MAX_MESSAGE_BYTES, two.remaining() - 1))
                .isInstanceOf(RecordBatchTooLargeException.class);
    }

    @Test
    void validationNeverChangesTheBytes() {
        ByteBuffer batch = TestBatches.batch("a", 2);
        ByteBuffer copy = TestBatches.concat(batch);
        validate(batch);
        assertThat(batch).isEqualTo(copy);
    }
}
