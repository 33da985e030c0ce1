package io.varve.bench.jmh;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.varve.storage.AppendResult;
import io.varve.storage.LogConfig;
import io.varve.storage.LogManager;
import io.varve.storage.PartitionLog;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A leader append of one 16 KiB batch: validation, offset assignment in place, producer-state check,
 * segment write (to the page cache; no fsync, as with Kafka's default flush policy) and index upkeep.
 * Each iteration starts a new log so that the disk use stays at one iteration's worth.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class AppendBenchmark {

    private ByteBuffer pristine;
    private ByteBuffer scratch;
    private Path dir;
    private LogManager logManager;
    private PartitionLog log;

    @Setup(Level.Trial)
    public void setUpBatch() {
        pristine = Batches.batch(Batches.RECORDS_PER_BATCH, Batches.RECORD_BYTES);
        scratch = ByteBuffer.allocate(pristine.remaining());
    }

    @Setup(Level.Iteration)
    public void setUpLog() throws IOException {
        dir = Files.createTempDirectory("varve-jmh-append");
        LogConfig config = LogConfig.defaults().withSegmentBytes(256L * 1024 * 1024);
        logManager = new LogManager(List.of(dir), config);
        log = logManager.getOrCreateLog(new TopicPartition("jmh", 0), Uuid.randomUuid(), config);
    }

    @TearDown(Level.Iteration)
    public void tearDownLog() throws IOException {
        logManager.close();
        Batches.deleteTree(dir);
    }

    @Benchmark
    public AppendResult appendAsLeader() {
        // The append patches offsets into the caller's buffer, as the broker's request buffer would be.
        scratch.clear();
        scratch.put(pristine.duplicate()).flip();
        return log.appendAsLeader(scratch, 0, System.currentTimeMillis());
    }
}
