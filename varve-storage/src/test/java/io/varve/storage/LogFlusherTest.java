package io.varve.storage;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.segment.LogSegment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The recovery point around rolls whose fsync runs later: it never passes a rolled segment not synced yet. */
class LogFlusherTest {

    @TempDir
    Path dir;

    private final AtomicLong logEnd = new AtomicLong();
    private final LogFlusher flusher = new LogFlusher(0, logEnd::get);
    private final List<String> synced = new ArrayList<>();
    private final List<LogSegment> opened = new ArrayList<>();

    private final LogFlusher.RolledSync sync = new LogFlusher.RolledSync() {
        @Override
        public void sync(LogSegment segment, long nextOffset) {
            synced.add("segment " + segment.baseOffset() + " to " + nextOffset);
        }

        @Override
        public void syncDirectory() {
            synced.add("directory");
        }
    };

    @AfterEach
    void close() throws IOException {
        for (LogSegment segment : opened) {
            segment.close();
        }
    }

    private LogSegment segment(long baseOffset) throws IOException {
        LogSegment segment = LogSegment.create(dir, baseOffset);
        opened.add(segment);
        return segment;
    }

    @Test
    void aRolledSegmentKeepsTheRecoveryPointBelowItUntilItIsSynced() throws IOException {
        logEnd.set(100);
        flusher.rolled(segment(0), 100);
        assertThat(flusher.recoveryPoint()).isZero();
        assertThat(flusher.rolledUnsynced()).isTrue();

        assertThat(flusher.syncRolled(sync)).isTrue();

        assertThat(synced).containsExactly("segment 0 to 100", "directory");
        assertThat(flusher.recoveryPoint()).isEqualTo(100);
        assertThat(flusher.rolledUnsynced()).isFalse();
        assertThat(flusher.syncRolled(sync)).as("nothing left to sync").isFalse();
    }

    @Test
    void aFlushSyncsTheQueuedRolledSegmentsOldestFirstBeforeTheActiveOne() throws IOException {
        logEnd.set(250);
        flusher.rolled(segment(0), 100);
        flusher.rolled(segment(100), 200);

        flusher.flush(250, segment(200), -1, sync);

        assertThat(synced).containsExactly("segment 0 to 100", "segment 100 to 200", "directory");
        assertThat(flusher.recoveryPoint()).isEqualTo(250);
    }

    @Test
    void aTruncationBelowAQueuedSegmentTakesItOffTheQueue() throws IOException {
        logEnd.set(200);
        flusher.rolled(segment(0), 100);
        flusher.rolled(segment(100), 200);

        logEnd.set(150);
        flusher.truncateTo(150);
        flusher.syncRolled(sync);

        assertThat(synced).containsExactly("segment 0 to 100", "directory");
        assertThat(flusher.recoveryPoint()).isEqualTo(100);
    }

    @Test
    void aFailedSyncLeavesTheSegmentQueuedAndTheRecoveryPointWhereItWas() throws IOException {
        logEnd.set(100);
        flusher.rolled(segment(0), 100);
        LogFlusher.RolledSync failing = new LogFlusher.RolledSync() {
            @Override
            public void sync(LogSegment segment, long nextOffset) throws IOException {
                throw new IOException("disk gone");
            }

            @Override
            public void syncDirectory() {}
        };

        try {
            flusher.syncRolled(failing);
            throw new AssertionError("the failure was swallowed");
        } catch (IOException expected) {
            assertThat(expected).hasMessage("disk gone");
        }

        assertThat(flusher.recoveryPoint()).isZero();
        assertThat(flusher.rolledUnsynced()).isTrue();
    }
}
