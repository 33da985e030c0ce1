package io.varve.storage.records;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.storage.KeyedBatches;
import io.varve.storage.TestBatches;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.Test;

class RecordKeysTest {

    private static final long TS = 1_700_000_000_000L;

    @Test
    void batchesWhoseRecordsAllHaveKeysPassPlainOrCompressed() {
        ByteBuffer batches = TestBatches.concat(
                KeyedBatches.batch(TS, "a=1", "b="),
                KeyedBatches.batch(Compression.gzip().build(), TS, "c=3", "a=4"));
        RecordKeys.requireKeys(batches, "t-0");
        assertThat(batches.position()).isZero();
    }

    @Test
    void aRecordWithoutAKeyIsRefusedEvenInsideACompressedBatch() {
        ByteBuffer plain = KeyedBatches.batch(TS, "a=1", "=no-key");
        ByteBuffer gzip = TestBatches.concat(
                KeyedBatches.batch(TS, "a=1"),
                KeyedBatches.batch(Compression.gzip().build(), TS, "b=2", "=no-key", "c=3"));

        assertThatThrownBy(() -> RecordKeys.requireKeys(plain, "t-0"))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessageContaining("t-0")
                .hasMessageContaining("without a key");
        assertThatThrownBy(() -> RecordKeys.requireKeys(gzip, "t-0")).isInstanceOf(InvalidRecordException.class);
    }

    @Test
    void visitHandsOutTheRecordsOfBatchesItReadsAndStopsBeforeTheBatchItIsToldTo() {
        ByteBuffer batches = TestBatches.concat(
                withBase(KeyedBatches.batch(TS, "a=1", "b="), 10),
                withBase(KeyedBatches.batch(Compression.gzip().build(), TS, "c=3"), 12),
                withBase(KeyedBatches.batch(TS, "d=4"), 13));
        List<String> seen = new ArrayList<>();

        long stoppedAt = RecordKeys.visit(batches, new RecordKeys.KeyVisitor() {
            @Override
            public RecordKeys.Decision batch(BatchInfo batch) {
                seen.add("batch " + batch.baseOffset() + ".." + batch.lastOffset() + " of " + batch.recordCount());
                return batch.baseOffset() == 13 ? RecordKeys.Decision.STOP : RecordKeys.Decision.READ;
            }

            @Override
            public void record(long offset, ByteBuffer key, boolean hasValue) {
                seen.add(offset + " " + StandardCharsets.UTF_8.decode(key) + (hasValue ? "" : " tombstone"));
            }
        });

        assertThat(stoppedAt).isEqualTo(13);
        assertThat(seen)
                .containsExactly(
                        "batch 10..11 of 2",
                        "10 a",
                        "11 b tombstone",
                        "batch 12..12 of 1",
                        "12 c",
                        "batch 13..13 of 1");
    }

    /** The batch with its base offset set, as the log would have assigned it. */
    static ByteBuffer withBase(ByteBuffer batch, long baseOffset) {
        batch.putLong(batch.position(), baseOffset);
        return batch;
    }
}
