package io.varve.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionIndexTest {

    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve(SegmentFiles.fileName(100, SegmentFiles.TXN_INDEX_SUFFIX));
    }

    @Test
    void theFileExistsOnlyOnceAnAbortIsIndexedAndEntriesAreKafkasThirtyFourBytes() throws Exception {
        try (TransactionIndex index = TransactionIndex.open(file())) {
            assertThat(index.exists()).isFalse();
            assertThat(file()).doesNotExist();
            index.append(new AbortedTxn(7, 100, 105, 106));
            index.append(new AbortedTxn(8, 101, 110, 111));
            assertThat(index.exists()).isTrue();
            assertThat(Files.size(file())).isEqualTo(2 * 34);
        }
        try (TransactionIndex reopened = TransactionIndex.open(file())) {
            assertThat(reopened.entries())
                    .containsExactly(new AbortedTxn(7, 100, 105, 106), new AbortedTxn(8, 101, 110, 111));
        }
    }

    @Test
    void collectFindsTheOverlappingAbortsAndIsCompleteOnceTheLastStableOffsetPassesTheRange() throws Exception {
        try (TransactionIndex index = TransactionIndex.open(file())) {
            index.append(new AbortedTxn(1, 100, 103, 101)); // producer 2 still open from 101
            index.append(new AbortedTxn(2, 101, 108, 109));
            index.append(new AbortedTxn(3, 120, 125, 126));

            TransactionIndex.Collected range = index.collect(104, 130);
            assertThat(range.aborted())
                    .containsExactly(new AbortedTxn(2, 101, 108, 109), new AbortedTxn(3, 120, 125, 126));
            assertThat(range.complete())
                    .as("a later segment may hold an abort starting before 130")
                    .isFalse();
            TransactionIndex.Collected early = index.collect(100, 102);
            assertThat(early.aborted())
                    .containsExactly(new AbortedTxn(1, 100, 103, 101), new AbortedTxn(2, 101, 108, 109));
            assertThat(early.complete()).isTrue();
        }
    }

    @Test
    void truncationDropsTheEntriesOfMarkersAtOrAfterTheOffsetAndATornTailIsIgnored() throws Exception {
        try (TransactionIndex index = TransactionIndex.open(file())) {
            index.append(new AbortedTxn(1, 100, 103, 104));
            index.append(new AbortedTxn(2, 104, 108, 109));
            index.truncateFrom(108);
            assertThat(index.entries()).containsExactly(new AbortedTxn(1, 100, 103, 104));
            assertThatThrownBy(() -> index.append(new AbortedTxn(3, 100, 103, 104)))
                    .isInstanceOf(IllegalStateException.class);
        }
        Files.write(file(), new byte[] {1, 2, 3}, java.nio.file.StandardOpenOption.APPEND);
        try (TransactionIndex torn = TransactionIndex.open(file())) {
            assertThat(torn.entryCount()).isEqualTo(1);
            torn.append(new AbortedTxn(4, 110, 111, 112));
            assertThat(Files.size(file())).isEqualTo(2 * 34);
        }
    }
}
