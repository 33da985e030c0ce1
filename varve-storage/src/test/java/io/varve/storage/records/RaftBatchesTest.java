package io.varve.storage.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.junit.jupiter.api.Test;

class RaftBatchesTest {
    private static final List<RaftBatches.Entry> ENTRIES = List.of(
            entry(10, 3, RaftBatches.DATA, "a"),
            entry(11, 3, RaftBatches.DATA, "b"),
            entry(12, 4, RaftBatches.LEADER_CHANGE, "leader"),
            entry(13, 4, RaftBatches.DATA, "c"),
            entry(14, 4, RaftBatches.VOTERS, "voters"));

    @Test
    void entriesComeBackWithTheirOffsetsEpochsTypesAndValues() {
        List<RaftBatches.Entry> back = RaftBatches.read(RaftBatches.build(ENTRIES), 100);
        assertThat(back).usingRecursiveComparison().isEqualTo(ENTRIES);
    }

    @Test
    void aReadStopsAfterMaxEntriesAndIgnoresAPartialBatchAtTheEnd() {
        ByteBuffer batches = RaftBatches.build(ENTRIES);
        assertThat(RaftBatches.read(batches, 3))
                .extracting(RaftBatches.Entry::offset)
                .containsExactly(10L, 11L, 12L);
        ByteBuffer cut = batches.duplicate().limit(batches.limit() - 5);
        assertThat(RaftBatches.read(cut, 100))
                .extracting(RaftBatches.Entry::offset)
                .containsExactly(10L, 11L, 12L, 13L);
    }

    @Test
    void aFlippedBitFailsTheBatchCrc() {
        ByteBuffer batches = RaftBatches.build(ENTRIES.subList(0, 2));
        batches.put(batches.limit() - 2, (byte) (batches.get(batches.limit() - 2) ^ 1));
        assertThatThrownBy(() -> RaftBatches.read(batches, 100)).isInstanceOf(CorruptRecordException.class);
    }

    @Test
    void noEntriesIsAnEmptyBuffer() {
        assertThat(RaftBatches.build(List.of()).remaining()).isZero();
        assertThat(RaftBatches.read(ByteBuffer.allocate(0), 10)).isEmpty();
    }

    private static RaftBatches.Entry entry(long offset, int epoch, short type, String value) {
        return new RaftBatches.Entry(offset, epoch, type, value.getBytes(StandardCharsets.UTF_8));
    }
}
