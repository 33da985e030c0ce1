package io.varve.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class ProducedRecordsTest {

    @Test
    void theWalkSeesWhatKafkaClientsReadsInUncompressedCompressedAndControlBatches() {
        for (long seed = 0; seed < 300; seed++) {
            Random random = new Random(seed);
            ByteBuffer records = randomBatches(random);
            assertThat(walked(records)).as("seed %d", seed).isEqualTo(reference(records));
            assertThat(records.position()).isZero();
        }
    }

    @Test
    void aVisitorThatStopsSeesNoFurtherRecord() {
        ByteBuffer records = join(batch(Compression.NONE, 5, new Random(1)), batch(Compression.NONE, 5, new Random(2)));
        List<Integer> seen = new ArrayList<>();
        ProducedRecords.forEach(records, (index, key, value) -> {
            seen.add(index);
            return index < 6;
        });
        assertThat(seen).containsExactly(0, 1, 2, 3, 4, 5, 6);
    }

    @Test
    void aBatchWhoseRecordsDoNotFitItsLengthIsRefusedAsKafkaClientsRefusesIt() {
        ByteBuffer good = batch(Compression.NONE, 4, new Random(3));
        // the count says one record more than the batch holds
        good.putInt(57, good.getInt(57) + 1);
        List<Integer> seen = new ArrayList<>();
        assertThatThrownBy(() -> ProducedRecords.forEach(good, (index, key, value) -> seen.add(index)))
                .isInstanceOf(RuntimeException.class);
        // the records before the damage were passed on once each, not twice
        assertThat(seen).doesNotHaveDuplicates();
    }

    private static List<String> walked(ByteBuffer records) {
        List<String> out = new ArrayList<>();
        ProducedRecords.forEach(records, (index, key, value) -> out.add(index + ":" + text(key) + ":" + text(value)));
        return out;
    }

    private static List<String> reference(ByteBuffer records) {
        List<String> out = new ArrayList<>();
        int index = 0;
        for (MutableRecordBatch batch :
                MemoryRecords.readableRecords(records.duplicate()).batches()) {
            if (batch.isControlBatch()) {
                continue;
            }
            for (Record r : batch) {
                out.add(index++ + ":" + text(r.hasKey() ? r.key() : null) + ":"
                        + text(r.hasValue() ? r.value() : null));
            }
        }
        return out;
    }

    private static String text(ByteBuffer b) {
        if (b == null) {
            return "null";
        }
        byte[] bytes = new byte[b.remaining()];
        b.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    private static ByteBuffer randomBatches(Random random) {
        List<ByteBuffer> batches = new ArrayList<>();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
            int kind = random.nextInt(6);
            if (kind == 0) {
                batches.add(batch(Compression.gzip().build(), 1 + random.nextInt(8), random));
            } else if (kind == 1) {
                batches.add(MemoryRecords.withEndTransactionMarker(
                                0L, 7L, (short) 0, new EndTransactionMarker(ControlRecordType.COMMIT, 0))
                        .buffer());
            } else {
                batches.add(batch(Compression.NONE, 1 + random.nextInt(40), random));
            }
        }
        return join(batches.toArray(ByteBuffer[]::new));
    }

    private static ByteBuffer batch(Compression compression, int count, Random random) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            byte[] key =
                    random.nextInt(4) == 0 ? null : bytes(random, random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(200));
            byte[] value = random.nextInt(6) == 0
                    ? null
                    : bytes(random, random.nextInt(5) == 0 ? 300 + random.nextInt(3000) : random.nextInt(50));
            Header[] headers = new Header[random.nextInt(3)];
            for (int h = 0; h < headers.length; h++) {
                headers[h] = new RecordHeader("h" + h, bytes(random, random.nextInt(20)));
            }
            records[i] = new SimpleRecord(1_000L + random.nextInt(1_000_000), key, value, headers);
        }
        return MemoryRecords.withRecords(compression, records).buffer();
    }

    private static byte[] bytes(Random random, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ('a' + random.nextInt(26));
        }
        return b;
    }

    private static ByteBuffer join(ByteBuffer... parts) {
        int total = 0;
        for (ByteBuffer p : parts) {
            total += p.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(total);
        for (ByteBuffer p : parts) {
            out.put(p.duplicate());
        }
        return out.flip();
    }
}
