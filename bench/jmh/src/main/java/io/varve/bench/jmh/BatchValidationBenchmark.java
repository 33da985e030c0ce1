package io.varve.bench.jmh;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.varve.storage.LogConfig;
import io.varve.storage.batch.BatchHeader;
import io.varve.storage.batch.ProduceBatchValidator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/** Validation of one incoming batch (header checks and CRC-32C over the whole batch), as Produce does. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class BatchValidationBenchmark {

    @Param({"16"})
    int recordsPerBatch;

    @Param({"1024"})
    int recordBytes;

    private ByteBuffer batch;

    @Setup
    public void setUp() {
        batch = Batches.batch(recordsPerBatch, recordBytes);
    }

    @Benchmark
    public List<BatchHeader> validate() {
        return ProduceBatchValidator.validate(batch.duplicate(), LogConfig.DEFAULT_MAX_MESSAGE_BYTES,
                LogConfig.DEFAULT_SEGMENT_BYTES);
    }
}
