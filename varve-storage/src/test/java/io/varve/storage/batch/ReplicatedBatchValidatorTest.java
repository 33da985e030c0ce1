package io.varve.storage.batch;

import static io.varve.storage.batch.RecordBatchV2.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.TestBatches;
import java.nio.ByteBuffer;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.junit.jupiter.api.Test;

class ReplicatedBatchValidatorTest {

    private static ByteBuffer replicated(long baseOffset, int count) {
        return TestBatches.asReplicated(TestBatches.batch("r" + baseOffset, count), baseOffset, 3);
    }

    @Test
    void wholeBatchesWithGapsAreAcceptedAndATrailingPartialBatchIsLeftOut() {
        ByteBuffer first = replicated(10, 2);
        ByteBuffer second = replicated(15, 3);
        ByteBuffer set = TestBatches.concat(first, second, replicated(18, 1));
        set.limit(set.limit() - 3);

        ReplicatedBatchValidator.Validated validated = ReplicatedBatchValidator.validate(set, 10);

        assertThat(validated.headers()).extracting(BatchHeader::baseOffset).containsExactly(10L, 15L);
        assertThat(validated.validBytes()).isEqualTo(first.remaining() + second.remaining());
        assertThat(set.position()).isZero();
    }

    @Test
    void aSetWhoseFirstBatchIsCutShortHoldsNoBatch() {
        ByteBuffer batch = replicated(0, 2);
        assertThat(ReplicatedBatchValidator.validate(batch.limit(batch.limit() - 1), 0)
                        .isEmpty())
                .isTrue();
        assertThat(ReplicatedBatchValidator.validate(ByteBuffer.allocate(5), 0).isEmpty())
                .isTrue();
    }

    @Test
    void aBatchBelowTheLogEndOrOverlappingThePreviousOneIsRefused() {
        assertThatThrownBy(() -> ReplicatedBatchValidator.validate(replicated(4, 2), 5))
                .isInstanceOf(OffsetOverlapException.class)
                .satisfies(e -> assertThat(((OffsetOverlapException) e).expectedAtLeast())
                        .isEqualTo(5));
        assertThatThrownBy(() ->
                        ReplicatedBatchValidator.validate(TestBatches.concat(replicated(0, 3), replicated(2, 1)), 0))
                .isInstanceOf(OffsetOverlapException.class);
    }

    @Test
    void aBadCrcMagicOrRecordCountIsRefused() {
        ByteBuffer badCrc = replicated(0, 2);
        badCrc.put(badCrc.limit() - 1, (byte) (badCrc.get(badCrc.limit() - 1) ^ 1));
        assertThatThrownBy(() -> ReplicatedBatchValidator.validate(badCrc, 0))
                .isInstanceOf(CorruptRecordException.class);

        ByteBuffer badMagic = replicated(0, 2);
        badMagic.put(MAGIC_OFFSET, (byte) 1);
        assertThatThrownBy(() -> ReplicatedBatchValidator.validate(badMagic, 0))
                .isInstanceOf(InvalidRecordException.class);

        ByteBuffer tooManyRecords = replicated(0, 2);
        tooManyRecords.putInt(RECORDS_COUNT_OFFSET, 3);
        tooManyRecords.putInt(CRC_OFFSET, (int) computeCrc(tooManyRecords, 0, sizeBytes(tooManyRecords, 0)));
        assertThatThrownBy(() -> ReplicatedBatchValidator.validate(tooManyRecords, 0))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("3 records for 2 offsets");
    }

    @Test
    void aBatchCompactionThinnedOutIsAccepted() {
        ByteBuffer thinned = replicated(0, 3);
        thinned.putInt(RECORDS_COUNT_OFFSET, 1); // what a cleaner leaves: fewer records than offsets
        thinned.putInt(CRC_OFFSET, (int) computeCrc(thinned, 0, sizeBytes(thinned, 0)));
        assertThat(ReplicatedBatchValidator.validate(thinned, 0).headers()).hasSize(1);
    }
}
