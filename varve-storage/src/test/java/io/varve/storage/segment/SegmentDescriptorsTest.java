package io.varve.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.TestBatches;
import io.varve.storage.batch.RecordBatchV2;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How many descriptors segments hold: none for indexes, one for a .log only once it is used. */
class SegmentDescriptorsTest {

    private static final int MAX_INDEX_BYTES = 10 * 1024 * 1024;

    @TempDir
    Path dir;

    /** Descriptors of this process open on files under {@link #dir}. */
    private long descriptorsUnderDir() throws Exception {
        Path fdDir = Path.of("/proc/self/fd");
        long count = 0;
        try (Stream<Path> fds = Files.list(fdDir)) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    if (Files.readSymbolicLink(fd).startsWith(dir)) {
                        count++;
                    }
                } catch (java.io.IOException e) {
                    // closed while listing
                }
            }
        }
        return count;
    }

    private static ByteBuffer batchAt(long baseOffset) {
        ByteBuffer batch = TestBatches.batch("o" + baseOffset, 2);
        RecordBatchV2.patchOffsetAndEpoch(batch, 0, baseOffset, 0);
        return batch;
    }

    @Test
    void newSegmentsHoldNoDescriptorAndAUsedOneHoldsOnlyItsLogFile() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")));
        LogSegment[] segments = new LogSegment[50];
        for (int i = 0; i < segments.length; i++) {
            Path partition = Files.createDirectories(dir.resolve("p" + i));
            segments[i] = LogSegment.create(partition, 0);
        }
        assertThat(descriptorsUnderDir()).isZero();
        for (int i = 0; i < 10; i++) {
            for (long offset = 0; offset < 40; offset += 2) {
                segments[i].append(batchAt(offset), 1, MAX_INDEX_BYTES); // an index entry per batch
            }
            assertThat(segments[i].index().entryCount()).isGreaterThan(1);
            assertThat(segments[i].read(10, Long.MAX_VALUE, 1 << 20, true)).isNotNull();
        }
        assertThat(descriptorsUnderDir())
                .as("one per used segment, none for indexes")
                .isEqualTo(10);
        for (LogSegment segment : segments) {
            segment.close();
        }
        assertThat(descriptorsUnderDir()).isZero();
    }

    @Test
    void sealingTrimsAnIndexToItsEntriesAndItStaysReadable() throws Exception {
        LogSegment segment = LogSegment.create(dir, 0);
        for (long offset = 0; offset < 20; offset += 2) {
            segment.append(batchAt(offset), 1, MAX_INDEX_BYTES);
        }
        int entries = segment.index().entryCount();
        assertThat(Files.size(segment.index().file()))
                .as("an index being appended to is grown ahead of its entries")
                .isGreaterThan((long) entries * OffsetIndex.ENTRY_SIZE_BYTES);
        segment.finish();
        assertThat(Files.size(segment.index().file())).isEqualTo((long) entries * OffsetIndex.ENTRY_SIZE_BYTES);
        assertThat(Files.size(segment.timeIndex().file()) % TimeIndex.ENTRY_SIZE_BYTES)
                .isZero();
        assertThat(segment.index().lookup(11)).isPositive();
        segment.close();

        LogSegment reopened = LogSegment.open(dir, 0);
        assertThat(reopened.index().entryCount()).isEqualTo(entries);
        assertThat(reopened.indexLooksConsistent()).isTrue();
        assertThat(reopened.batchContaining(11).baseOffset()).isEqualTo(10);
        reopened.close();
    }

    @Test
    void anIndexLeftGrownByACrashFailsTheSanityCheckSoRecoveryRebuildsIt() throws Exception {
        LogSegment segment = LogSegment.create(dir, 0);
        for (long offset = 0; offset < 20; offset += 2) {
            segment.append(batchAt(offset), 1, MAX_INDEX_BYTES);
        }
        segment.flush(); // durable, but not sealed: what a crash of the active segment leaves
        // no close(): a crash does not trim
        LogSegment reopened = LogSegment.open(dir, 0);
        assertThat(reopened.indexLooksConsistent()).isFalse();
        reopened.rebuildIndex(1, MAX_INDEX_BYTES, true);
        assertThat(reopened.indexLooksConsistent()).isTrue();
        assertThat(reopened.batchContaining(11).baseOffset()).isEqualTo(10);
        reopened.close();
    }
}
