package io.varve.broker.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.storage.checkpoint.LeaderEpochCheckpointFile.EpochEntry;
import io.varve.tiered.spi.RemoteStorageException;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class TieredReadsTest {

    @Test
    void anOffsetTakesTheEpochOfTheLastLineageEntryStartingAtOrBeforeIt() {
        List<EpochEntry> lineage = List.of(new EpochEntry(0, 0), new EpochEntry(2, 100), new EpochEntry(5, 250));

        assertThat(TieredReads.epochOf(lineage, 0)).isEqualTo(OptionalInt.of(0));
        assertThat(TieredReads.epochOf(lineage, 99)).isEqualTo(OptionalInt.of(0));
        assertThat(TieredReads.epochOf(lineage, 100)).isEqualTo(OptionalInt.of(2));
        assertThat(TieredReads.epochOf(lineage, 10_000)).isEqualTo(OptionalInt.of(5));
        assertThat(TieredReads.epochOf(List.of(new EpochEntry(3, 50)), 10)).isEmpty();
    }

    @Test
    void aStoreFailureIsUnknownServerErrorAsInKafkaAndAnOffsetOutsideTheRemoteLogIsOutOfRange() {
        assertThat(TieredReads.errorFor(new RemoteStorageException("connection refused", true)))
                .isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertThat(TieredReads.errorFor(new CompletionException(new RemoteStorageException("slow", true))))
                .isEqualTo(Errors.UNKNOWN_SERVER_ERROR);
        assertThat(TieredReads.errorFor(new CompletionException(new OffsetOutOfRangeException("gone"))))
                .isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
    }

    @Test
    void withRemoteStorageOffNothingIsServedRemotely() {
        TieredReads disabled = TieredReads.disabled();

        assertThat(disabled.servesRemotely(null, 0)).isFalse();
        assertThat(disabled.hasRemoteOnlyData(null)).isFalse();
        assertThat(disabled.latestTiered(null)).isEqualTo(new TieredReads.OffsetAndEpoch(-1, -1));
    }

    @Test
    void theEarliestPendingUploadIsTheOffsetAfterTheHighestCopiedOneWithItsEpochButNeverBelowTheLogStart() {
        List<EpochEntry> lineage = List.of(new EpochEntry(0, 0), new EpochEntry(2, 100));

        assertThat(TieredReads.earliestPendingUpload(99, 0, 60, lineage))
                .isEqualTo(new TieredReads.OffsetAndEpoch(100, 2));
        assertThat(TieredReads.earliestPendingUpload(49, 0, 60, lineage))
                .isEqualTo(new TieredReads.OffsetAndEpoch(50, 0));
        assertThat(TieredReads.earliestPendingUpload(49, 80, 80, lineage))
                .as("records deleted past the copied ones")
                .isEqualTo(new TieredReads.OffsetAndEpoch(80, 0));
    }

    @Test
    void withNothingCopiedTheEarliestPendingUploadIsTheLogStartOnlyWhileTheWholeLogIsLocal() {
        List<EpochEntry> lineage = List.of(new EpochEntry(1, 0), new EpochEntry(2, 100));

        assertThat(TieredReads.earliestPendingUpload(-1, 0, 0, lineage))
                .isEqualTo(new TieredReads.OffsetAndEpoch(0, 1));
        assertThat(TieredReads.earliestPendingUpload(-1, 0, 0, List.of()))
                .isEqualTo(new TieredReads.OffsetAndEpoch(0, -1));
        assertThat(TieredReads.earliestPendingUpload(-1, 0, 120, lineage))
                .as("segments were copied but this leader does not know them yet")
                .isEqualTo(new TieredReads.OffsetAndEpoch(-1, -1));
    }

    @Test
    void withRemoteStorageOffNothingIsPendingUpload() {
        assertThat(TieredReads.disabled().earliestPendingUpload(null))
                .isEqualTo(new TieredReads.OffsetAndEpoch(-1, -1));
    }
}
