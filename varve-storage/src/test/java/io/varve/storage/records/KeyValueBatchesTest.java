package io.varve.storage.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.TestBatches;
import io.varve.storage.batch.RecordBatchV2;
import io.varve.storage.records.KeyValueBatches.KeyValue;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.junit.jupiter.api.Test;

class KeyValueBatchesTest {
    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** What a read saw, one line per record or marker. */
    private static List<String> read(ByteBuffer batches, long[] nextOffset) {
        List<String> seen = new ArrayList<>();
        nextOffset[0] = KeyValueBatches.read(batches, new KeyValueBatches.Sink() {
            @Override
            public void record(BatchInfo batch, byte[] key, byte[] value) {
                seen.add("record p" + batch.producerId() + (batch.transactional() ? " txn " : " ")
                        + new String(key, StandardCharsets.UTF_8) + "="
                        + (value == null ? "null" : new String(value, StandardCharsets.UTF_8)));
            }

            @Override
            public void marker(BatchInfo batch, boolean commit) {
                seen.add("marker p" + batch.producerId() + (commit ? " commit" : " abort"));
            }
        });
        return seen;
    }

    @Test
    void plainAndTransactionalBatchesReadBackWithTheirMarkers() {
        ByteBuffer plain = KeyValueBatches.build(
                List.of(new KeyValue(bytes("a"), bytes("1")), new KeyValue(bytes("b"), null)),
                1_000L,
                -1,
                (short) -1,
                -1);
        ByteBuffer txn = KeyValueBatches.build(List.of(new KeyValue(bytes("c"), bytes("3"))), 1_000L, 7L, (short) 2, 5);
        RecordBatchV2.patchOffsetAndEpoch(txn, 0, 2L, 0);
        ByteBuffer marker = new TxnMarker(true, 0).batch(7L, (short) 2, 1_000L);
        RecordBatchV2.patchOffsetAndEpoch(marker, 0, 3L, 0);

        long[] next = {0};
        assertThat(read(TestBatches.concat(plain, txn, marker), next))
                .containsExactly("record p-1 a=1", "record p-1 b=null", "record p7 txn c=3", "marker p7 commit");
        assertThat(next[0]).isEqualTo(4L);

        MutableRecordBatch built = TestBatches.batches(txn).get(0);
        assertThat(built.isTransactional()).isTrue();
        assertThat(built.producerEpoch()).isEqualTo((short) 2);
        assertThat(built.baseSequence()).isEqualTo(5);
        assertThat(TestBatches.batches(plain).get(0).hasProducerId()).isFalse();
    }

    @Test
    void aBatchWhoseCrcDoesNotMatchIsRefused() {
        ByteBuffer batch =
                KeyValueBatches.build(List.of(new KeyValue(bytes("a"), bytes("1"))), 1_000L, -1, (short) -1, -1);
        int lastByte = batch.limit() - 1;
        batch.put(lastByte, (byte) (batch.get(lastByte) ^ 1));

        assertThatThrownBy(() -> read(batch, new long[1])).isInstanceOf(CorruptRecordException.class);
    }

    @Test
    void nothingToReadEndsAtMinusOne() {
        long[] next = {0};
        assertThat(read(ByteBuffer.allocate(0), next)).isEmpty();
        assertThat(next[0]).isEqualTo(-1L);
    }
}
