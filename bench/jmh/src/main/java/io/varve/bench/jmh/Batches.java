package io.varve.bench.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Inputs shared by the benchmarks: one producer's batch as it arrives in a Produce request. */
final class Batches {

    /** The producer's default batch.size is 16 KiB: 16 records of 1 KiB fill one batch. */
    static final int RECORDS_PER_BATCH = 16;
    static final int RECORD_BYTES = 1024;

    private Batches() {
    }

    /** An uncompressed magic-v2 batch of {@code records} random {@code recordBytes}-byte values, no keys. */
    static ByteBuffer batch(int records, int recordBytes) {
        Random random = new Random(42);
        long nowMs = System.currentTimeMillis();
        SimpleRecord[] simple = new SimpleRecord[records];
        for (int i = 0; i < records; i++) {
            byte[] value = new byte[recordBytes];
            random.nextBytes(value);
            simple[i] = new SimpleRecord(nowMs, null, value);
        }
        return MemoryRecords.withRecords(Compression.NONE, simple).buffer();
    }

    static void deleteTree(Path dir) throws IOException {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
