package io.varve.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.coordinator.group.record.CoordinatorRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.Test;

class OffsetsPartitionIoTest {
    private static List<CoordinatorRecord> records(int count, int valueBytes) {
        List<CoordinatorRecord> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            out.add(new CoordinatorRecord(("key-" + i).getBytes(), new byte[valueBytes]));
        }
        return out;
    }

    private static List<RecordBatch> batches(List<ByteBuffer> batches) {
        List<RecordBatch> out = new ArrayList<>();
        batches.forEach(b -> MemoryRecords.readableRecords(b).batches().forEach(out::add));
        return out;
    }

    @Test
    void plainRecordsBecomeNonTransactionalBatchesWithoutAProducer() {
        List<RecordBatch> batches = batches(OffsetsPartitionIo.toBatches(records(3, 10), 1_000L));
        assertThat(batches).singleElement().satisfies(b -> {
            assertThat(b.isTransactional()).isFalse();
            assertThat(b.producerId()).isEqualTo(RecordBatch.NO_PRODUCER_ID);
            assertThat(b.countOrNull()).isEqualTo(3);
        });
    }

    @Test
    void transactionalRecordsSplitIntoBatchesOfTheProducerWhoseSequencesContinue() {
        int perBatch = OffsetsPartitionIo.MAX_BATCH_BYTES / (100_000 + 40);
        List<RecordBatch> batches =
                batches(OffsetsPartitionIo.toBatches(records(2 * perBatch + 1, 100_000), 1_000L, 77L, (short) 4, 10));
        assertThat(batches).hasSizeGreaterThan(1);
        int expectedSequence = 10;
        for (RecordBatch b : batches) {
            assertThat(b.isTransactional()).isTrue();
            assertThat(b.isControlBatch()).isFalse();
            assertThat(b.producerId()).isEqualTo(77L);
            assertThat(b.producerEpoch()).isEqualTo((short) 4);
            assertThat(b.baseSequence()).isEqualTo(expectedSequence);
            expectedSequence += b.countOrNull();
        }
        assertThat(expectedSequence - 10).isEqualTo(2 * perBatch + 1);
    }
}
