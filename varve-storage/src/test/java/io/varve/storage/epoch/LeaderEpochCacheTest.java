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
}
