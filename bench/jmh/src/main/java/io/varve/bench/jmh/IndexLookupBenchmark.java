package io.varve.bench.jmh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import io.varve.storage.segment.OffsetIndex;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Offset-index lookups at random offsets (a consumer far behind), and at the tail (a caught-up
 * consumer). The index holds one entry per 16-record, 16 KiB batch, as with index.interval.bytes 4096.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class IndexLookupBenchmark {

    @Param({"1000", "100000"})
    int entries;

    private static final int TARGETS = 4096;
    private Path dir;
    private OffsetIndex index;
    private long[] targets;
    private long tailTarget;
    private int next;

    @Setup
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("varve-jmh-index");
        index = OffsetIndex.open(dir.resolve("00000000000000000000.index"), 0);
        for (int i = 0; i < entries; i++) {
            index.append((long) i * Batches.RECORDS_PER_BATCH, i * (Batches.RECORDS_PER_BATCH * (Batches.RECORD_BYTES + 16)));
        }
        SplittableRandom random = new SplittableRandom(42);
        targets = new long[TARGETS];
        for (int i = 0; i < TARGETS; i++) {
            targets[i] = random.nextLong((long) entries * Batches.RECORDS_PER_BATCH);
        }
        tailTarget = (long) entries * Batches.RECORDS_PER_BATCH - 1;
    }

    @TearDown
    public void tearDown() throws IOException {
        index.close();
        Batches.deleteTree(dir);
    }

    @Benchmark
    public int lookupRandom() throws IOException {
        next = (next + 1) & (TARGETS - 1);
        return index.lookup(targets[next]);
    }

    @Benchmark
    public int lookupTail() throws IOException {
        return index.lookup(tailTarget);
    }
}
