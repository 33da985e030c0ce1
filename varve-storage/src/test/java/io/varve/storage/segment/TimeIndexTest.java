package io.varve.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimeIndexTest {

    private static final long BASE = 500L;

    @TempDir
    Path dir;

    @Test
    void appendsOnlyWhenTheTimestampRises() throws Exception {
        try (TimeIndex index = TimeIndex.open(dir.resolve("a.timeindex"), BASE)) {
            assertThat(index.maybeAppend(1_000, BASE)).isTrue();
            assertThat(index.maybeAppend(1_000, BASE + 5)).isFalse();
            assertThat(index.maybeAppend(900, BASE + 6)).isFalse();
            assertThat(index.maybeAppend(1_200, BASE + 7)).isTrue();
            assertThat(index.entryCount()).isEqualTo(2);
            assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(1_200, BASE + 7));
        }
    }

    @Test
    void offsetsMayNotGoBackNorLeaveTheSegment() throws Exception {
        try (TimeIndex index = TimeIndex.open(dir.resolve("a.timeindex"), BASE)) {
            index.maybeAppend(1_000, BASE + 10);
            assertThatThrownBy(() -> index.maybeAppend(2_000, BASE + 9)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> index.maybeAppend(3_000, BASE - 1)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() ->
                            TimeIndex.open(dir.resolve("b.timeindex"), BASE).maybeAppend(1, BASE - 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void lookupFindsTheLargestTimestampAtOrBelowTheTarget() throws Exception {
        try (TimeIndex index = TimeIndex.open(dir.resolve("a.timeindex"), BASE)) {
            for (int i = 1; i <= 50; i++) {
                index.maybeAppend(i * 100L, BASE + i * 3L);
            }
            assertThat(index.lookup(99)).isNull();
            assertThat(index.lookup(100)).isEqualTo(new TimeIndex.Entry(100, BASE + 3));
            assertThat(index.lookup(2_550)).isEqualTo(new TimeIndex.Entry(2_500, BASE + 75));
            assertThat(index.lookup(4_999)).isEqualTo(new TimeIndex.Entry(4_900, BASE + 147));
            assertThat(index.lookup(Long.MAX_VALUE)).isEqualTo(new TimeIndex.Entry(5_000, BASE + 150));
        }
    }

    @Test
    void reopenedIndexKeepsItsEntriesAndIgnoresATornEntry() throws Exception {
        Path file = dir.resolve("a.timeindex");
        try (TimeIndex index = TimeIndex.open(file, BASE)) {
            index.maybeAppend(10, BASE);
            index.maybeAppend(20, BASE + 4);
        }
        assertThat(Files.size(file)).isEqualTo(2L * TimeIndex.ENTRY_SIZE_BYTES);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.APPEND)) {
            channel.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5}));
        }
        try (TimeIndex index = TimeIndex.open(file, BASE)) {
            assertThat(index.hasPartialEntry()).isTrue();
            assertThat(index.entryCount()).isEqualTo(2);
            assertThat(index.lastEntry()).isEqualTo(new TimeIndex.Entry(20, BASE + 4));
            assertThat(index.lookup(15)).isEqualTo(new TimeIndex.Entry(10, BASE));
        }
    }

    @Test
    void fullWhenMaxSizeHoldsNoMoreEntriesButAlwaysHoldsOne() throws Exception {
        try (TimeIndex index = TimeIndex.open(dir.resolve("a.timeindex"), BASE)) {
            assertThat(index.isFull(8)).isFalse();
            index.maybeAppend(1, BASE);
            assertThat(index.isFull(8)).isTrue();
            assertThat(index.isFull(24)).isFalse();
            index.maybeAppend(2, BASE + 1);
            assertThat(index.isFull(24)).isTrue();
        }
    }
}
