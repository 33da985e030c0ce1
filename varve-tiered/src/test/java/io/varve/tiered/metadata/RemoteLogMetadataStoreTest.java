package io.varve.tiered.metadata;

import static io.varve.tiered.metadata.RemoteSegmentState.COPY_SEGMENT_FINISHED;
import static io.varve.tiered.metadata.RemoteSegmentState.DELETE_SEGMENT_FINISHED;
import static io.varve.tiered.metadata.RemoteSegmentState.DELETE_SEGMENT_STARTED;
import static io.varve.tiered.metadata.Segments.PARTITION;
import static io.varve.tiered.metadata.Segments.epochs;
import static io.varve.tiered.metadata.Segments.segment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentAdded;
import io.varve.tiered.metadata.RemoteLogMetadataEvent.SegmentStateChanged;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemoteLogMetadataStoreTest {
    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve(RemoteLogMetadataStore.FILE_NAME);
    }

    private static List<RemoteSegmentMetadata> segments(RemoteLogMetadataStore store) {
        return store.read(c -> c.segments(PARTITION));
    }

    /** Writes: a copied segment, a half-copied one, a half-deleted one and a fully deleted one. */
    private static List<RemoteSegmentMetadata> writeHistory(RemoteLogMetadataStore store) throws IOException {
        RemoteSegmentMetadata copied = segment(PARTITION, 0, 99, epochs(0, 0, 2, 40));
        store.append(new SegmentAdded(copied));
        copied = store.append(new SegmentStateChanged(copied.segmentId(), COPY_SEGMENT_FINISHED, 10));
        RemoteSegmentMetadata halfCopied = store.append(new SegmentAdded(segment(100, 199)));
        RemoteSegmentMetadata halfDeleted = segment(200, 299);
        store.append(new SegmentAdded(halfDeleted));
        store.append(new SegmentStateChanged(halfDeleted.segmentId(), COPY_SEGMENT_FINISHED, 11));
        halfDeleted = store.append(new SegmentStateChanged(halfDeleted.segmentId(), DELETE_SEGMENT_STARTED, 12));
        RemoteSegmentMetadata deleted = segment(300, 399);
        store.append(new SegmentAdded(deleted));
        store.append(new SegmentStateChanged(deleted.segmentId(), DELETE_SEGMENT_STARTED, 13));
        store.append(new SegmentStateChanged(deleted.segmentId(), DELETE_SEGMENT_FINISHED, 14));
        return List.of(copied, halfCopied, halfDeleted);
    }

    @Test
    void reopeningReplaysEveryEventIntoTheSameState() throws IOException {
        List<RemoteSegmentMetadata> expected;
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            expected = writeHistory(store);
            assertThat(segments(store)).isEqualTo(expected);
        }
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            assertThat(segments(store)).isEqualTo(expected);
            assertThat(store.eventCount()).isEqualTo(9);
            assertThat(store.read(RemoteLogMetadataCache::segmentsToCleanUp))
                    .containsExactly(expected.get(1), expected.get(2));
        }
    }

    @Test
    void illegalEventIsNotWritten() throws IOException {
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            RemoteSegmentMetadata m = store.append(new SegmentAdded(segment(0, 9)));
            long sizeBefore = Files.size(file());
            assertThatThrownBy(() -> store.append(new SegmentStateChanged(m.segmentId(), DELETE_SEGMENT_FINISHED, 1)))
                    .isInstanceOf(IllegalRemoteSegmentTransitionException.class);
            assertThat(Files.size(file())).isEqualTo(sizeBefore);
        }
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            assertThat(store.eventCount()).isEqualTo(1);
        }
    }

    @Test
    void tornLastRecordIsTruncatedAndAppendsContinueAfterIt() throws IOException {
        List<RemoteSegmentMetadata> expected;
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            expected = writeHistory(store);
        }
        long goodSize = Files.size(file());
        // a crash in the middle of the next append: its frame and half its body reached the disk
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            store.append(new SegmentAdded(segment(400, 499)));
        }
        long fullSize = Files.size(file());
        for (long cut = goodSize + 1; cut < fullSize; cut += 7) {
            try (var ch = java.nio.channels.FileChannel.open(file(), StandardOpenOption.WRITE)) {
                ch.truncate(cut);
            }
            try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
                assertThat(segments(store)).as("cut at %d", cut).isEqualTo(expected);
            }
            assertThat(Files.size(file())).isEqualTo(goodSize);
            try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
                store.append(new SegmentAdded(segment(400, 499)));
            }
        }
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            assertThat(segments(store)).hasSize(4);
        }
    }

    @Test
    void lastRecordWithBadCrcAndZeroFilledTailAreTruncated() throws IOException {
        List<RemoteSegmentMetadata> expected;
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            expected = writeHistory(store);
        }
        long goodSize = Files.size(file());
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            store.append(new SegmentAdded(segment(400, 499)));
        }
        flipByte(Files.size(file()) - 3);
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            assertThat(segments(store)).isEqualTo(expected);
        }
        Files.write(file(), new byte[4096], StandardOpenOption.APPEND);
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            assertThat(segments(store)).isEqualTo(expected);
        }
        assertThat(Files.size(file())).isEqualTo(goodSize);
    }

    @Test
    void corruptionBeforeTheLastRecordFailsTheOpenLoudly() throws IOException {
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            writeHistory(store);
        }
        flipByte(8 + 8 + 20); // inside the first record's body
        assertThatThrownBy(() -> RemoteLogMetadataStore.open(dir))
                .isInstanceOf(CorruptRemoteLogMetadataException.class)
                .hasMessageContaining("corrupt record at byte 8");
    }

    @Test
    void aFileOfAnotherKindIsRefused() throws IOException {
        Files.writeString(file(), "hello, this is not metadata");
        assertThatThrownBy(() -> RemoteLogMetadataStore.open(dir))
                .isInstanceOf(CorruptRemoteLogMetadataException.class)
                .hasMessageContaining("not a remote log metadata file");
    }

    @Test
    void compactionKeepsTheStateAndDropsTheHistoryOfDeletedSegments() throws IOException {
        List<RemoteSegmentMetadata> expected;
        long sizeBefore;
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            expected = writeHistory(store);
            sizeBefore = Files.size(file());
            store.compact();
            assertThat(store.eventCount()).isEqualTo(5);
            assertThat(segments(store)).isEqualTo(expected);
            RemoteSegmentMetadata after = store.append(new SegmentAdded(segment(500, 599)));
            assertThat(after.state()).isEqualTo(RemoteSegmentState.COPY_SEGMENT_STARTED);
        }
        try (RemoteLogMetadataStore store = RemoteLogMetadataStore.open(dir)) {
            assertThat(segments(store)).hasSize(4).startsWith(expected.toArray(new RemoteSegmentMetadata[0]));
            assertThat(store.eventCount()).isEqualTo(6);
        }
        assertThat(Files.size(file())).isLessThan(sizeBefore);
        assertThat(dir.resolve(RemoteLogMetadataStore.FILE_NAME + ".compacting"))
                .doesNotExist();
    }

    private void flipByte(long position) throws IOException {
        byte[] bytes = Files.readAllBytes(file());
        bytes[(int) position] ^= 0x5A;
        Files.write(file(), bytes);
    }
}
