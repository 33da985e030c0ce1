package io.varve.storage.segment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetIndexTest {

    private static final long BASE = 1_000L;

    @TempDir
    Path dir;

    @Test
    void lookupFindsTheLargestEntryAtOrBelowTheTarget() throws Exception {
        try (OffsetIndex index = OffsetIndex.open(dir.resolve("a.index"), BASE)) {
            for (int i = 1; i <= 100; i++) {
                index.append(BASE + i * 10L, i * 100);
            }
            assertThat(index.lookup(BASE - 5)).isZero();
            assertThat(index.lookup(BASE + 9)).isZero();
            assertThat(index.lookup(BASE + 10)).isEqualTo(100);
            assertThat(index.lookup(BASE + 555)).isEqualTo(5500);
            assertThat(index.lookup(BASE + 999)).isEqualTo(9900);
            assertThat(index.lookup(BASE + 1000)).isEqualTo(10000);
            assertThat(index.lookup(Long.MAX_VALUE)).isEqualTo(10000);
        }
    }

    @Test
    void emptyIndexPointsAtTheStartOfTheSegment() throws Exception {
        try (OffsetIndex index = OffsetIndex.open(dir.resolve("a.index"), BASE)) {
            assertThat(index.lookup(BASE + 50)).isZero();
        }
    }

    @Test
    void entriesMustGrowStrictly() throws Exception {
        try (OffsetIndex index = OffsetIndex.open(dir.resolve("a.index"), BASE)) {
            index.append(BASE + 10, 100);
            assertThatThrownBy(() -> index.append(BASE + 10, 200)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> index.append(BASE + 20, 100)).isInstanceOf(IllegalStateException.class);
            assertThatThrownBy(() -> index.append(BASE - 1, 300)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void fullWhenMaxSizeHoldsNoMoreEntries() throws Exception {
        try (OffsetIndex index = OffsetIndex.open(dir.resolve("a.index"), BASE)) {
            index.append(BASE + 1, 10);
            assertThat(index.isFull(16)).isFalse();
            index.append(BASE + 2, 20);
            assertThat(index.isFull(16)).isTrue();
            assertThat(index.isFull(17)).isTrue();
        }
    }

    @Test
    void reopenedIndexKeepsItsEntriesAndFileHoldsExactlyThem() throws Exception {
        Path file = dir.resolve("a.index");
        try (OffsetIndex index = OffsetIndex.open(file, BASE)) {
            index.append(BASE + 3, 30);
            index.append(BASE + 7, 70);
        }
        assertThat(Files.size(file)).isEqualTo(2L * OffsetIndex.ENTRY_SIZE_BYTES);
        try (OffsetIndex index = OffsetIndex.open(file, BASE)) {
            assertThat(index.entryCount()).isEqualTo(2);
            assertThat(index.entry(0)).isEqualTo(new OffsetIndex.Entry(BASE + 3, 30));
            assertThat(index.lookup(BASE + 8)).isEqualTo(70);
            assertThat(index.lookup(BASE + 5)).isEqualTo(30);
        }
    }

    @Test
    void clearDropsAllEntries() throws Exception {
        try (OffsetIndex index = OffsetIndex.open(dir.resolve("a.index"), BASE)) {
            index.append(BASE + 3, 30);
            index.clear();
            assertThat(index.entryCount()).isZero();
            assertThat(index.lookup(BASE + 3)).isZero();
            index.append(BASE + 1, 5);
            assertThat(index.lookup(BASE + 3)).isEqualTo(5);
        }
    }
}
