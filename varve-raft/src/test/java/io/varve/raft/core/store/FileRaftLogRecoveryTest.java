package io.varve.raft.core.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.OffsetAndEpoch;
import io.varve.raft.core.message.SnapshotId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileRaftLogRecoveryTest {
    private static final int SEGMENT_BYTES = 1024;

    @TempDir
    Path dir;

    @Test
    void entriesRollIntoSegmentsAndSurviveAReopen() {
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            log.append(entries(0, 100, 1));
            log.append(entries(100, 50, 3));
            log.flush();
        }
        assertThat(segmentFiles()).hasSizeGreaterThan(3);
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            assertThat(log.endOffset()).isEqualTo(150);
            assertThat(log.flushedEndOffset()).isEqualTo(150);
            assertThat(log.lastEpoch()).isEqualTo(3);
            List<LogEntry> expected = new ArrayList<>(entries(95, 5, 1));
            expected.addAll(entries(100, 10, 3));
            assertThat(log.read(95, 110, 100)).isEqualTo(expected);
            assertThat(log.endOffsetForEpoch(2)).contains(new OffsetAndEpoch(100, 1));
            assertThat(log.endOffsetForEpoch(3)).contains(new OffsetAndEpoch(150, 3));
        }
    }

    @Test
    void aTornTailIsDroppedAndTheLogContinuesAfterTheLastWholeEntry() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir, 1 << 20)) {
            log.append(entries(0, 10, 1));
            log.flush();
        }
        Path segment = segmentFiles().get(0);
        long whole = Files.size(segment);
        appendBytes(segment, new byte[] {0, 0, 0, 40, 1, 2, 3}); // a frame header promising more than follows
        try (FileRaftLog log = FileRaftLog.open(dir, 1 << 20)) {
            assertThat(log.endOffset()).isEqualTo(10);
            assertThat(Files.size(segment)).isEqualTo(whole);
            log.append(entries(10, 1, 1));
            assertThat(log.read(9, 11, 5)).extracting(LogEntry::offset).containsExactly(9L, 10L);
        }
    }

    @Test
    void aBadChecksumInTheLastEntryIsATornTail() {
        try (FileRaftLog log = FileRaftLog.open(dir, 1 << 20)) {
            log.append(entries(0, 10, 1));
        }
        Path segment = segmentFiles().get(0);
        PowerCut.DurableIoForTests.flipByte(segment, size(segment) - 3);
        try (FileRaftLog log = FileRaftLog.open(dir, 1 << 20)) {
            assertThat(log.endOffset()).isEqualTo(9);
        }
    }

    @Test
    void aBadChecksumBeforeTheTailRefusesToOpen() {
        try (FileRaftLog log = FileRaftLog.open(dir, 1 << 20)) {
            log.append(entries(0, 10, 1));
            log.flush();
        }
        Path segment = segmentFiles().get(0);
        PowerCut.DurableIoForTests.flipByte(segment, size(segment) / 2);
        assertThatThrownBy(() -> FileRaftLog.open(dir, 1 << 20))
                .isInstanceOf(CorruptStoreException.class)
                .hasMessageContaining("corrupt, not torn");
    }

    @Test
    void aBadChecksumInARolledSegmentRefusesToOpenEvenAtItsEnd() {
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            log.append(entries(0, 60, 1));
            log.flush();
        }
        Path first = segmentFiles().get(0);
        PowerCut.DurableIoForTests.flipByte(first, size(first) - 3);
        assertThatThrownBy(() -> FileRaftLog.open(dir, SEGMENT_BYTES)).isInstanceOf(CorruptStoreException.class);
    }

    @Test
    void aMissingSegmentInTheMiddleRefusesToOpen() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            log.append(entries(0, 80, 1));
            log.flush();
        }
        Files.delete(segmentFiles().get(1));
        assertThatThrownBy(() -> FileRaftLog.open(dir, SEGMENT_BYTES))
                .isInstanceOf(CorruptStoreException.class)
                .hasMessageContaining("does not follow");
    }

    @Test
    void corruptionFoundByAReadAfterOpenFailsLoudly() {
        try (FileRaftLog log = FileRaftLog.open(dir, 1 << 20)) {
            log.append(entries(0, 10, 1));
            log.flush();
            PowerCut.DurableIoForTests.flipByte(segmentFiles().get(0), 30);
            assertThatThrownBy(() -> log.read(0, 10, 10)).isInstanceOf(CorruptStoreException.class);
        }
    }

    @Test
    void unflushedEntriesMayBeLostButFlushedOnesSurviveAPowerCut() {
        FileRaftLog log = FileRaftLog.open(dir, 1 << 20);
        log.append(entries(0, 20, 1));
        log.flush();
        log.append(entries(20, 20, 1));
        assertThat(log.flushedEndOffset()).isEqualTo(20);
        Optional<Map.Entry<Path, Long>> last = log.lastSegmentFlushedBytes();
        log.close();
        truncate(last.get().getKey(), last.get().getValue() + 7); // the page cache wrote back 7 more bytes
        try (FileRaftLog reopened = FileRaftLog.open(dir, 1 << 20)) {
            assertThat(reopened.endOffset()).isEqualTo(20);
            assertThat(reopened.read(0, 20, 20)).isEqualTo(entries(0, 20, 1));
        }
    }

    @Test
    void aSnapshotStartDeletesWholeSegmentsBelowItAndSurvivesAReopen() {
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            log.append(entries(0, 80, 1));
            log.append(entries(80, 20, 2));
            int before = segmentFiles().size();
            log.advanceStart(new SnapshotId(85, 2));
            assertThat(segmentFiles()).hasSizeLessThan(before);
            assertThat(log.endOffsetForEpoch(1)).isEmpty();
            assertThat(log.endOffsetForEpoch(2)).contains(new OffsetAndEpoch(100, 2));
        }
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            assertThat(log.startOffset()).isEqualTo(85);
            assertThat(log.startEpoch()).isEqualTo(2);
            assertThat(log.read(85, 100, 100)).isEqualTo(entries(85, 15, 2));
        }
    }

    @Test
    void segmentsACrashLeftBelowTheStartAreDeletedOnOpen() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            log.append(entries(0, 80, 1));
            log.flush();
        }
        writeStartFile(70, 1, 0); // the start moved; the crash came before the deletions
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            assertThat(log.startOffset()).isEqualTo(70);
            assertThat(log.read(70, 80, 100)).isEqualTo(entries(70, 10, 1));
            assertThat(LogSegment.baseOffsetOf(segmentFiles().get(0))).isLessThanOrEqualTo(70);
            assertThat(LogSegment.baseOffsetOf(segmentFiles().get(0))).isGreaterThan(0);
        }
    }

    @Test
    void aResetACrashInterruptedDeletesEverySegmentOnOpen() throws IOException {
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            log.append(entries(0, 80, 1));
            log.flush();
        }
        writeStartFile(50, 4, 1); // a snapshot of another history was being installed
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            assertThat(log.startOffset()).isEqualTo(50);
            assertThat(log.endOffset()).isEqualTo(50);
            assertThat(log.lastEpoch()).isEqualTo(4);
            assertThat(segmentFiles()).isEmpty();
            log.append(entries(50, 3, 5));
        }
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            assertThat(log.endOffset()).isEqualTo(53);
        }
    }

    @Test
    void truncationAcrossSegmentsIsDurable() {
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            log.append(entries(0, 80, 1));
            log.truncateTo(13);
            assertThat(log.endOffset()).isEqualTo(13);
            assertThat(log.flushedEndOffset()).isEqualTo(0);
            log.append(entries(13, 2, 2));
            log.flush();
        }
        try (FileRaftLog log = FileRaftLog.open(dir, SEGMENT_BYTES)) {
            assertThat(log.endOffset()).isEqualTo(15);
            assertThat(log.endOffsetForEpoch(1)).contains(new OffsetAndEpoch(13, 1));
        }
    }

    private void writeStartFile(long startOffset, int startEpoch, int resetPending) {
        new KeyValueFile(dir.resolve(FileRaftLog.START_FILE_NAME), "test", 1)
                .write(Map.of("startOffset", startOffset, "startEpoch", (long) startEpoch, "resetPending", (long)
                        resetPending));
    }

    static List<LogEntry> entries(long from, int count, int epoch) {
        List<LogEntry> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long offset = from + i;
            out.add(new LogEntry(
                    offset,
                    epoch,
                    EntryType.DATA,
                    ("entry-" + offset + "-" + "x".repeat((int) (offset % 17))).getBytes()));
        }
        return out;
    }

    private List<Path> segmentFiles() {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> LogSegment.baseOffsetOf(f) >= 0).sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void truncate(Path file, long bytes) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(bytes);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void appendBytes(Path file, byte[] bytes) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            channel.write(ByteBuffer.wrap(bytes));
        }
    }
}
