package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Shared steps for partition-log tests: reading a whole log, finding and damaging segment files. */
final class LogTestSupport {

    private LogTestSupport() {}

    /** Every record of the log as "offset:value", read batch by batch from the log start. */
    static List<String> readAll(PartitionLog log) {
        List<String> all = new ArrayList<>();
        long next = log.logStartOffset();
        while (next < log.logEndOffset()) {
            LogReadResult result = log.read(next, 1, Long.MAX_VALUE, true);
            assertThat(result.records().remaining()).as("read at %d", next).isPositive();
            all.addAll(TestBatches.offsetsAndValues(result.records()));
            next = TestBatches.batches(result.records())
                    .get(TestBatches.batches(result.records()).size() - 1)
                    .nextOffset();
        }
        return all;
    }

    static List<Path> segmentFiles(Path partitionDir) throws IOException {
        try (Stream<Path> files = Files.list(partitionDir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList();
        }
    }

    static Path lastSegmentFile(Path partitionDir) throws IOException {
        List<Path> segments = segmentFiles(partitionDir);
        return segments.get(segments.size() - 1);
    }

    static void appendBytes(Path file, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.APPEND)) {
            channel.write(ByteBuffer.wrap(bytes));
        }
    }

    static void truncate(Path file, long sizeBytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(sizeBytes);
        }
    }

    /** Turns the last shutdown of every given log dir into a crash, as far as the next start-up can tell. */
    static void forgetCleanShutdown(List<Path> logDirs) throws IOException {
        for (Path dir : logDirs) {
            Files.delete(dir.resolve(LogManager.CLEAN_SHUTDOWN_FILE));
        }
    }
}
