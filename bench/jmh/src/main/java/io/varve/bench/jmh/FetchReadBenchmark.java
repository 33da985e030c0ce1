package io.varve.bench.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.LogReadResult;
import io.varve.storage.LogSlice;
import io.varve.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The storage half of a fetch of up to 1 MiB (the consumer's default max.partition.fetch.bytes) from a
 * random offset of a 64 MiB log: {@code readSlice} finds the bytes for a zero-copy send, {@code read}
 * also copies them to the heap.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FetchReadBenchmark {

    private static final int BATCHES = 4096;
    private static final int FETCH_MAX_BYTES = 1024 * 1024;
    private static final int TARGETS = 4096;

    private Path dir;
    private LogManager logManager;
    private PartitionLog log;
    private long[] targets;
    private int next;

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("varve-jmh-fetch");
        LogConfig config = LogConfig.defaults();
        logManager = new LogManager(List.of(dir), config);
        log = logManager.getOrCreateLog(new TopicPartition("jmh", 0), Uuid.randomUuid(), config);
        ByteBuffer pristine = Batches.batch(Batches.RECORDS_PER_BATCH, Batches.RECORD_BYTES);
        for (int i = 0; i < BATCHES; i++) {
            ByteBuffer copy = ByteBuffer.allocate(pristine.remaining()).put(pristine.duplicate()).flip();
            log.appendAsLeader(copy, 0, System.currentTimeMillis());
        }
        log.updateHighWatermark(log.logEndOffset());
        SplittableRandom random = new SplittableRandom(42);
        targets = new long[TARGETS];
        for (int i = 0; i < TARGETS; i++) {
            targets[i] = random.nextLong(log.logEndOffset());
        }
    }

    @TearDown
    public void tearDown() throws IOException {
        logManager.close();
        Batches.deleteTree(dir);
    }

    @Benchmark
    public LogSlice readSlice() {
        next = (next + 1) & (TARGETS - 1);
        return log.readSlice(targets[next], FETCH_MAX_BYTES, log.logEndOffset(), true);
    }

    @Benchmark
    public LogReadResult readCopy() {
        next = (next + 1) & (TARGETS - 1);
        return log.read(targets[next], FETCH_MAX_BYTES, log.logEndOffset(), true);
    }
}
