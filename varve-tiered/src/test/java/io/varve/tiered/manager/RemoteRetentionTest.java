package io.varve.tiered.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.CleanupPolicy;
import io.varve.storage.LogConfig;
import io.varve.tiered.metadata.RemoteSegmentMetadata;
import io.varve.tiered.metadata.RemoteSegmentState;
import io.varve.tiered.metadata.Segments;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RemoteRetentionTest {

    /** Segments.segment(start, end) has max timestamp 1_700_000_000_000 + end and (end - start + 1) * 100 bytes. */
    private static final List<RemoteSegmentMetadata> COPIED = List.of(copied(0, 9), copied(10, 19), copied(20, 29));

    private static final long T0 = 1_700_000_000_000L;

    private static RemoteSegmentMetadata copied(long start, long end) {
        return Segments.segment(start, end).withState(RemoteSegmentState.COPY_SEGMENT_FINISHED, T0);
    }

    private static List<Long> starts(RemoteRetention.Plan plan) {
        return plan.deletions().stream().map(d -> d.segment().startOffset()).toList();
    }

    @Test
    void segmentsBelowTheLogStartOffsetGoWithoutMovingIt() {
        LogConfig config = LogConfig.defaults().withRetentionMs(LogConfig.UNLIMITED);
        RemoteRetention.Plan plan = RemoteRetention.plan(COPIED, 15, config, T0, 0);

        assertThat(starts(plan)).containsExactly(0L);
        assertThat(plan.newLogStartOffset()).isEqualTo(15);
    }

    @Test
    void retentionMsDeletesTheExpiredPrefixAndMovesTheStartPastIt() {
        LogConfig config = LogConfig.defaults().withRetentionMs(1000);
        RemoteRetention.Plan plan = RemoteRetention.plan(COPIED, 0, config, T0 + 19 + 1001, 0);

        assertThat(starts(plan)).containsExactly(0L, 10L);
        assertThat(plan.newLogStartOffset()).isEqualTo(20);
    }

    @Test
    void retentionBytesCountsRemoteAndLocalOnlyBytes() {
        LogConfig config =
                LogConfig.defaults().withRetentionMs(LogConfig.UNLIMITED).withRetentionBytes(2500);
        // 3 x 1000 remote + 1000 local-only = 4000: two segments must go to stay >= 2500... only while the rest >= 2500
        RemoteRetention.Plan plan = RemoteRetention.plan(COPIED, 0, config, T0, 1000);

        assertThat(starts(plan)).containsExactly(0L);
        assertThat(plan.newLogStartOffset()).isEqualTo(10);
        assertThat(RemoteRetention.plan(COPIED, 0, config, T0, 0).isEmpty()).isTrue();
    }

    @Test
    void compactOnlyTopicsKeepEverythingAboveTheLogStart() {
        LogConfig config = LogConfig.defaults()
                .withCleanupPolicy(Set.of(CleanupPolicy.COMPACT))
                .withRetentionMs(1)
                .withRetentionBytes(1);
        assertThat(RemoteRetention.plan(COPIED, 0, config, T0 + 1_000_000, 0).isEmpty())
                .isTrue();
    }
}
