package io.varve.tiered.manager;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.LogConfig;
import io.varve.storage.RolledSegment;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class UploadPlannerTest {

    private static final long NOW_MS = 1_700_000_100_000L;
    private static final LogConfig CONFIG = LogConfig.defaults().withRemoteStorageEnable(true);

    private static RolledSegment segment(long base, long end, long maxTimestampMs) {
        Path dir = Path.of("/nowhere");
        return new RolledSegment(
                base,
                end,
                maxTimestampMs,
                100,
                dir.resolve(base + ".log"),
                dir.resolve(base + ".index"),
                dir.resolve(base + ".timeindex"),
                dir.resolve((end + 1) + ".snapshot"));
    }

    private static final List<RolledSegment> ROLLED =
            List.of(segment(0, 9, NOW_MS), segment(10, 19, NOW_MS), segment(20, 29, NOW_MS));

    @Test
    void uploadsRolledSegmentsAboveTheHighestCopiedOffsetInOrder() {
        assertThat(UploadPlanner.segmentsToUpload(ROLLED, 9, 100, UploadPlanner.NOT_COMPACTED, CONFIG, NOW_MS))
                .extracting(RolledSegment::baseOffset)
                .containsExactly(10L, 20L);
    }

    @Test
    void stopsAtTheFirstSegmentReachingTheHighWatermark() {
        assertThat(UploadPlanner.segmentsToUpload(ROLLED, -1, 29, UploadPlanner.NOT_COMPACTED, CONFIG, NOW_MS))
                .extracting(RolledSegment::baseOffset)
                .containsExactly(0L, 10L);
        assertThat(UploadPlanner.segmentsToUpload(ROLLED, -1, 30, UploadPlanner.NOT_COMPACTED, CONFIG, NOW_MS))
                .hasSize(3);
    }

    @Test
    void aSegmentPartlyCoveredByTheRemoteCopyIsUploadedWhole() {
        assertThat(UploadPlanner.segmentsToUpload(ROLLED, 15, 100, UploadPlanner.NOT_COMPACTED, CONFIG, NOW_MS))
                .extracting(RolledSegment::baseOffset)
                .containsExactly(10L, 20L);
    }

    @Test
    void compactedLogsUploadOnlyCleanedSegmentsOlderThanTheMinCompactionLag() {
        LogConfig compacted = CONFIG.toBuilder().minCompactionLagMs(60_000).build();
        List<RolledSegment> rolled = List.of(
                segment(0, 9, NOW_MS - 120_000), segment(10, 19, NOW_MS - 120_000), segment(20, 29, NOW_MS - 1_000));

        assertThat(UploadPlanner.segmentsToUpload(rolled, -1, 100, 20, compacted, NOW_MS))
                .extracting(RolledSegment::baseOffset)
                .containsExactly(0L, 10L);
        assertThat(UploadPlanner.segmentsToUpload(rolled, -1, 100, 15, compacted, NOW_MS))
                .as("cleaned only up to 15")
                .extracting(RolledSegment::baseOffset)
                .containsExactly(0L);
        assertThat(UploadPlanner.segmentsToUpload(rolled, -1, 100, 100, compacted, NOW_MS))
                .as("the newest is within the lag")
                .hasSize(2);
    }

    @Test
    void lagCountsRolledSegmentsNotUploaded() {
        assertThat(UploadPlanner.lag(ROLLED, 9)).isEqualTo(new UploadLag(200, 2));
        assertThat(UploadPlanner.lag(ROLLED, 29)).isEqualTo(UploadLag.NONE);
    }
}
