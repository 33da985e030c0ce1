package io.varve.storage.records;

import static io.varve.storage.records.RecordKeysTest.withBase;
import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.KeyedBatches;
import io.varve.storage.KeyedBatches.Rec;
import io.varve.storage.TestBatches;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.junit.jupiter.api.Test;

class CompactionFilterTest {

    private static final long TS = 1_700_000_000_000L;
    private static final long NOW = TS + 1000;
    private static final long DELETE_RETENTION_MS = 5_000;

    /** Rules over a key to latest offset map; producers' last batches by producer id. */
    private static final class MapRules implements CompactionFilter.Rules {
        final Map<String, Long> latest = new HashMap<>();
        final Map<Long, Long> producerLastOffsets = new HashMap<>();

        @Override
        public boolean keepUntouched(BatchInfo batch) {
            return batch.control() || batch.transactional();
        }

        @Override
        public boolean keepWhenEmpty(BatchInfo batch) {
            return producerLastOffsets.getOrDefault(batch.producerId(), -2L) == batch.lastOffset();
        }

        @Override
        public boolean isLatest(ByteBuffer key, long offset) {
            return offset
                    >= latest.getOrDefault(
                            StandardCharsets.UTF_8.decode(key.duplicate()).toString(), -1L);
        }

        MapRules latest(String key, long offset) {
            latest.put(key, offset);
            return this;
        }
    }

    private static CompactionFilter.Result filter(MapRules rules, ByteBuffer batches, long nowMs) {
        try (CompactionFilter filter = new CompactionFilter(rules, Long.MAX_VALUE, nowMs, DELETE_RETENTION_MS)) {
            return filter.filter(batches, ByteBuffer.allocate(16));
        }
    }

    @Test
    void keepsTheLatestRecordOfEachKeyAtItsOffsetWithTheBatchMetadataAndCodec() {
        ByteBuffer gzip = MemoryRecords.withIdempotentRecords(
                        Compression.gzip().build(),
                        42L,
                        (short) 3,
                        17,
                        KeyedBatches.records(TS, "a=1", "b=1", "a=2", "c=1"))
                .buffer();
        withBase(gzip, 100);
        MapRules rules = new MapRules().latest("a", 102).latest("b", 101).latest("c", 200);

        CompactionFilter.Result result = filter(rules, gzip, NOW);

        MutableRecordBatch batch = KeyedBatches.batches(result.output()).get(0);
        assertThat(KeyedBatches.records(result.output()))
                .containsExactly(new Rec(101, "b", "1"), new Rec(102, "a", "2"));
        assertThat(batch.baseOffset()).isEqualTo(100);
        assertThat(batch.lastOffset())
                .as("the last offset, so the last sequence, is kept")
                .isEqualTo(103);
        assertThat(batch.producerId()).isEqualTo(42);
        assertThat(batch.producerEpoch()).isEqualTo((short) 3);
        assertThat(batch.baseSequence()).isEqualTo(17);
        assertThat(batch.lastSequence()).isEqualTo(20);
        assertThat(batch.compressionType()).isEqualTo(CompressionType.GZIP);
        assertThat(batch.timestampType()).isEqualTo(TimestampType.CREATE_TIME);
        assertThat(result.recordsRead()).isEqualTo(4);
        assertThat(result.recordsKept()).isEqualTo(2);
    }

    @Test
    void aBatchWhoseRecordsAllStayIsCopiedByteForByte() {
        ByteBuffer batch = withBase(KeyedBatches.batch(Compression.gzip().build(), TS, "a=1", "b=2"), 5);
        CompactionFilter.Result result = filter(new MapRules(), batch.duplicate(), NOW);
        assertThat(result.output()).isEqualTo(batch);
    }

    @Test
    void anEmptiedBatchGoesUnlessItIsTheLastOfItsProducerWhichStaysAsAnEmptyHeader() {
        ByteBuffer older = withBase(KeyedBatches.idempotent(7L, (short) 0, 0, TS, "a=1", "b=1"), 0);
        ByteBuffer last = withBase(KeyedBatches.idempotent(7L, (short) 0, 2, TS, "a=2", "b=2"), 2);
        ByteBuffer plain = withBase(KeyedBatches.batch(TS, "a=3", "b=3"), 4);
        MapRules rules = new MapRules().latest("a", 4).latest("b", 5);
        rules.producerLastOffsets.put(7L, 3L);

        CompactionFilter.Result result = filter(rules, TestBatches.concat(older, last, plain), NOW);

        List<MutableRecordBatch> kept = KeyedBatches.batches(result.output());
        assertThat(kept).extracting(MutableRecordBatch::baseOffset).containsExactly(2L, 4L);
        MutableRecordBatch empty = kept.get(0);
        assertThat(empty.countOrNull()).isZero();
        assertThat(empty.lastOffset()).isEqualTo(3);
        assertThat(empty.producerId()).isEqualTo(7);
        assertThat(empty.lastSequence()).isEqualTo(3);
        assertThat(KeyedBatches.records(result.output())).containsExactly(new Rec(4, "a", "3"), new Rec(5, "b", "3"));
    }

    @Test
    void transactionalAndControlBatchesAreLeftUntouched() {
        ByteBuffer transactional = withBase(KeyedBatches.transactional(9L, (short) 1, 0, TS, "a=1", "a="), 0);
        ByteBuffer marker = MemoryRecords.withEndTransactionMarker(
                        2L, TS, 0, 9L, (short) 1, new EndTransactionMarker(ControlRecordType.COMMIT, 0))
                .buffer();
        ByteBuffer both = TestBatches.concat(transactional, marker);
        MapRules rules = new MapRules().latest("a", 50);

        CompactionFilter.Result result = filter(rules, both.duplicate(), NOW);

        assertThat(result.output()).isEqualTo(both);
        assertThat(result.recordsKept()).isEqualTo(3);
    }

    @Test
    void aTombstoneIsStampedWithItsDeleteHorizonOnItsFirstRewriteAndDroppedOnceItPassed() {
        ByteBuffer batch = withBase(KeyedBatches.batch(TS, "a=1", "b=", "c=3"), 0);
        MapRules rules = new MapRules();

        CompactionFilter.Result first = filter(rules, batch, NOW);
        MutableRecordBatch stamped = KeyedBatches.batches(first.output()).get(0);
        assertThat(stamped.deleteHorizonMs()).hasValue(NOW + DELETE_RETENTION_MS);
        assertThat(first.earliestTombstoneHorizonMs()).isEqualTo(NOW + DELETE_RETENTION_MS);
        assertThat(KeyedBatches.records(first.output()))
                .containsExactly(new Rec(0, "a", "1"), new Rec(1, "b", null), new Rec(2, "c", "3"));
        for (Record record : stamped) {
            assertThat(record.timestamp())
                    .as("record timestamps survive the new base timestamp")
                    .isEqualTo(TS);
        }

        CompactionFilter.Result before = filter(rules, first.output(), NOW + DELETE_RETENTION_MS - 1);
        assertThat(KeyedBatches.records(before.output())).extracting(Rec::key).containsExactly("a", "b", "c");
        assertThat(before.earliestTombstoneHorizonMs()).isEqualTo(NOW + DELETE_RETENTION_MS);

        CompactionFilter.Result after = filter(rules, first.output(), NOW + DELETE_RETENTION_MS);
        assertThat(KeyedBatches.records(after.output())).containsExactly(new Rec(0, "a", "1"), new Rec(2, "c", "3"));
        assertThat(after.earliestTombstoneHorizonMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void recordsPastTheMappedRangeAreKeptWhateverTheirKeys() {
        ByteBuffer batch = withBase(KeyedBatches.batch(TS, "a=1", "=keyless", "a=2", "=keyless"), 0);
        MapRules rules = new MapRules().latest("a", 10);
        try (CompactionFilter filter = new CompactionFilter(rules, 2, NOW, DELETE_RETENTION_MS)) {
            CompactionFilter.Result result = filter.filter(batch, ByteBuffer.allocate(0));
            assertThat(KeyedBatches.records(result.output()))
                    .containsExactly(new Rec(2, "a", "2"), new Rec(3, null, "keyless"));
        }
    }
}
