package io.varve.storage.epoch;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile;
import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderEpochCacheTest {

    @TempDir
    Path dir;

    private LeaderEpochCache load() {
        return LeaderEpochCache.load("t-0", new LeaderEpochCheckpointFile(dir));
    }

    @Test
    void newEpochIsPersistedInTheCheckpointFormat() throws Exception {
        LeaderEpochCache cache = load();
        assertThat(cache.latestEpoch()).isEqualTo(LeaderEpochCache.NO_EPOCH);
        cache.assign(0, 0);
        cache.assign(3, 150);

        assertThat(Files.readString(dir.resolve(LeaderEpochCheckpointFile.FILE_NAME)))
                .isEqualTo("0\n2\n0 0\n3 150\n");
        assertThat(load().entries()).containsExactly(new EpochEntry(0, 0), new EpochEntry(3, 150));
        assertThat(load().latestEpoch()).isEqualTo(3);
    }

    @Test
    void anOffsetBelongsToTheLatestEpochStartingAtOrBelowIt() {
        LeaderEpochCache cache = load();
        assertThat(cache.epochForOffset(0)).isEqualTo(LeaderEpochCache.NO_EPOCH);
        cache.assign(2, 10);
        cache.assign(5, 150);

        assertThat(cache.epochForOffset(9)).isEqualTo(LeaderEpochCache.NO_EPOCH);
        assertThat(cache.epochForOffset(10)).isEqualTo(2);
        assertThat(cache.epochForOffset(149)).isEqualTo(2);
        assertThat(cache.epochForOffset(150)).isEqualTo(5);
        assertThat(cache.epochForOffset(10_000)).isEqualTo(5);
    }

    @Test
    void olderOrEqualEpochsChangeNothing() {
        LeaderEpochCache cache = load();
        cache.assign(5, 10);
        cache.assign(5, 20);
        cache.assign(4, 30);
        cache.assign(-1, 40);
        assertThat(cache.entries()).containsExactly(new EpochEntry(5, 10));
    }

    @Test
    void truncateFromEndDropsEpochsStartingAtOrPastTheEnd() {
        LeaderEpochCache cache = load();
        cache.assign(1, 0);
        cache.assign(2, 10);
        cache.assign(3, 20);
        cache.truncateFromEnd(10);
        assertThat(cache.entries()).containsExactly(new EpochEntry(1, 0));
        assertThat(load().entries()).containsExactly(new EpochEntry(1, 0));
    }

    @Test
    void assigningANewEpochBelowExistingStartOffsetsReplacesThem() {
        LeaderEpochCache cache = load();
        cache.assign(1, 0);
        cache.assign(2, 10);
        cache.assign(3, 5);
        assertThat(cache.entries()).containsExactly(new EpochEntry(1, 0), new EpochEntry(3, 5));
    }

    /** Epochs 2 from 0, 4 from 10 and 7 from 25, log end 40. */
    private LeaderEpochCache lineage() {
        LeaderEpochCache cache = load();
        cache.assign(2, 0);
        cache.assign(4, 10);
        cache.assign(7, 25);
        return cache;
    }

    @Test
    void theLatestEpochEndsAtTheLogEndOffset() {
        assertThat(lineage().endOffsetFor(7, 40)).isEqualTo(new EpochEndOffset(7, 40));
    }

    @Test
    void aCachedOlderEpochEndsWhereTheNextOneStarts() {
        assertThat(lineage().endOffsetFor(2, 40)).isEqualTo(new EpochEndOffset(2, 10));
        assertThat(lineage().endOffsetFor(4, 40)).isEqualTo(new EpochEndOffset(4, 25));
    }

    @Test
    void anEpochThisLogNeverHeldIsAnsweredWithTheLargestEpochBelowItAndTheStartOfTheNextOne() {
        assertThat(lineage().endOffsetFor(5, 40)).isEqualTo(new EpochEndOffset(4, 25));
        assertThat(lineage().endOffsetFor(3, 40)).isEqualTo(new EpochEndOffset(2, 10));
    }

    @Test
    void anEpochBelowEveryCachedOneEndsWhereTheFirstCachedEpochStarts() {
        // Kafka's answer: the requested epoch itself and the first known start, so the follower replicates from there
        assertThat(lineage().endOffsetFor(1, 40)).isEqualTo(new EpochEndOffset(1, 0));
    }

    @Test
    void anUndefinedOrFutureEpochOrAnEmptyCacheIsUndefined() {
        assertThat(lineage().endOffsetFor(8, 40)).isEqualTo(EpochEndOffset.UNDEFINED);
        assertThat(lineage().endOffsetFor(LeaderEpochCache.NO_EPOCH, 40)).isEqualTo(EpochEndOffset.UNDEFINED);
        LeaderEpochCache empty = LeaderEpochCache.load("empty-0", new LeaderEpochCheckpointFile(dir.resolve("x")));
        assertThat(empty.endOffsetFor(0, 40)).isEqualTo(EpochEndOffset.UNDEFINED);
    }

    @Test
    void clearDropsEveryEpochDurably() {
        LeaderEpochCache cache = lineage();
        cache.clear();
        assertThat(cache.entries()).isEmpty();
        assertThat(load().entries()).isEmpty();
    }
}
