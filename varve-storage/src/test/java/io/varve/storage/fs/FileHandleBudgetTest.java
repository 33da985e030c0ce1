package io.varve.storage.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileHandleBudgetTest {

    private static final long SECOND_NANOS = 1_000_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong nowNanos = new AtomicLong(1_000 * SECOND_NANOS);
    private final AtomicLong limit = new AtomicLong(48); // a budget of 16: the reserve is never below 32

    private List<SegmentChannel> channels(FileHandleBudget budget, int count) throws Exception {
        List<SegmentChannel> all = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Path file = Files.createFile(dir.resolve(i + ".log"));
            all.add(new SegmentChannel(budget, () -> file));
        }
        return all;
    }

    @Test
    void theBudgetIsTheOpenFileLimitLessAReserveForSocketsAndOtherFiles() {
        assertThat(new FileHandleBudget(() -> 20_000, nowNanos::get).budget()).isEqualTo(20_000 - 4096);
        assertThat(new FileHandleBudget(() -> 1_200, nowNanos::get).budget()).isEqualTo(900);
        assertThat(new FileHandleBudget(limit::get, nowNanos::get).budget()).isEqualTo(16);
    }

    @Test
    void aSegmentFileHoldsNoDescriptorUntilItsFirstUse() throws Exception {
        FileHandleBudget budget = new FileHandleBudget(limit::get, nowNanos::get);
        List<SegmentChannel> all = channels(budget, 3);
        assertThat(budget.held()).isZero();
        all.get(1).get();
        assertThat(budget.held()).isOne();
        assertThat(all.get(1).isOpen()).isTrue();
        assertThat(all.get(0).isOpen()).isFalse();
    }

    @Test
    void pastTheBudgetAnOpenFailsRetriablyWhileEveryDescriptorIsInUse() throws Exception {
        FileHandleBudget budget = new FileHandleBudget(limit::get, nowNanos::get);
        List<SegmentChannel> all = channels(budget, 17);
        for (int i = 0; i < 16; i++) {
            all.get(i).get();
        }
        assertThatThrownBy(() -> all.get(16).get())
                .isInstanceOf(FileHandlesExhaustedException.class)
                .satisfies(e -> assertThat(IoErrors.isResourceExhaustion(e)).isTrue());
        assertThat(budget.held()).isEqualTo(16);
    }

    @Test
    void descriptorsIdleLongEnoughAreGivenBackLeastRecentlyUsedFirstAndReopenOnTheirNextUse() throws Exception {
        FileHandleBudget budget = new FileHandleBudget(limit::get, nowNanos::get);
        List<SegmentChannel> all = channels(budget, 17);
        for (int i = 0; i < 16; i++) {
            all.get(i).get();
            nowNanos.addAndGet(SECOND_NANOS / 10);
        }
        nowNanos.addAndGet(FileHandleBudget.IDLE_BEFORE_EVICTION_NANOS);
        all.get(16).get();
        assertThat(budget.held()).isLessThanOrEqualTo(16);
        assertThat(all.get(0).isOpen()).as("the least recently used one went").isFalse();
        assertThat(all.get(15).isOpen()).isTrue();
        assertThat(all.get(0).get().isOpen()).as("and reopens when used").isTrue();
    }

    @Test
    void raisingTheLimitOfARunningProcessGrowsTheBudget() throws Exception {
        FileHandleBudget budget = new FileHandleBudget(limit::get, nowNanos::get);
        List<SegmentChannel> all = channels(budget, 17);
        for (int i = 0; i < 16; i++) {
            all.get(i).get();
        }
        limit.set(1_000);
        nowNanos.addAndGet(2 * SECOND_NANOS); // the limit is re-read at most once a second
        all.get(16).get();
        assertThat(budget.budget()).isEqualTo(750);
        assertThat(budget.held()).isEqualTo(17);
    }

    @Test
    void closingASegmentFileReleasesItsDescriptorAndLaterUsesFail() throws Exception {
        FileHandleBudget budget = new FileHandleBudget(limit::get, nowNanos::get);
        SegmentChannel channel = channels(budget, 1).get(0);
        channel.get();
        channel.close();
        assertThat(budget.held()).isZero();
        assertThatThrownBy(channel::get).isInstanceOf(java.nio.channels.ClosedChannelException.class);
    }

    @Test
    void runningOutOfDescriptorsOrMapAreasIsTellsApartFromDiskFaults() {
        assertThat(IoErrors.isResourceExhaustion(
                        new java.nio.file.FileSystemException("a", null, "Too many open files")))
                .isTrue();
        assertThat(IoErrors.isResourceExhaustion(new java.io.IOException("x", new java.io.IOException("Map failed"))))
                .isTrue();
        assertThat(IoErrors.isResourceExhaustion(new java.io.IOException("No space left on device")))
                .isFalse();
        assertThat(IoErrors.isResourceExhaustion(new java.io.IOException("Input/output error")))
                .isFalse();
    }
}
