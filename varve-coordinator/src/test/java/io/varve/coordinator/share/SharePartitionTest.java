package io.varve.coordinator.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SharePartitionTest {
    private static final long LOCK_MS = 30_000;
    private static final List<long[]> TEN = List.<long[]>of(new long[] {0, 4}, new long[] {5, 9});

    private final SharePartition p = new SharePartition(0, 5, 2000);

    @Test
    void aFetchAcquiresNewRecordsInRangesAndTheNextFetchSkipsThem() {
        assertThat(p.acquire("a", TEN, 500, LOCK_MS, 0)).containsExactly(new SharePartition.AcquiredRange(0, 9, 1));
        assertThat(p.endOffset()).isEqualTo(10);
        assertThat(p.nextFetchOffset(1)).isEqualTo(10);
        assertThat(p.acquire("b", TEN, 500, LOCK_MS, 1)).isEmpty();
        p.checkInvariants();
    }

    @Test
    void maxRecordsAndTheInFlightLimitStopAcquisition() {
        assertThat(p.acquire("a", TEN, 3, LOCK_MS, 0)).containsExactly(new SharePartition.AcquiredRange(0, 2, 1));
        SharePartition small = new SharePartition(0, 5, 4);
        assertThat(small.acquire("a", TEN, 100, LOCK_MS, 0)).containsExactly(new SharePartition.AcquiredRange(0, 3, 1));
        assertThat(small.hasAcquirable(10, 0)).isFalse();
    }

    @Test
    void acceptedRecordsMoveTheStartOffsetAndAreNeverDeliveredAgain() {
        p.acquire("a", TEN, 500, LOCK_MS, 0);
        assertThat(p.acknowledge("a", 0, 4, AcknowledgeType.ACCEPT, 1)).isTrue();
        assertThat(p.startOffset()).isEqualTo(5);
        assertThat(p.acknowledge("a", 0, 0, AcknowledgeType.ACCEPT, 1)).isFalse();
        p.expireLocks(LOCK_MS + 1);
        assertThat(p.nextFetchOffset(LOCK_MS + 1)).isEqualTo(5);
        assertThat(p.acquire("b", TEN, 500, LOCK_MS, LOCK_MS + 1))
                .containsExactly(new SharePartition.AcquiredRange(5, 9, 2));
    }

    @Test
    void anExpiredLockMakesTheRecordAvailableToAnotherMember() {
        p.acquire("a", TEN, 500, LOCK_MS, 0);
        assertThat(p.holderOf(3)).isEqualTo("a");
        assertThat(p.nextFetchOffset(LOCK_MS - 1)).isEqualTo(10);
        assertThat(p.nextFetchOffset(LOCK_MS)).isEqualTo(0);
        assertThat(p.acquire("b", TEN, 500, LOCK_MS, LOCK_MS))
                .containsExactly(new SharePartition.AcquiredRange(0, 9, 2));
        // a's late acknowledgement is refused: the records are b's now
        assertThat(p.acknowledge("a", 0, 9, AcknowledgeType.ACCEPT, LOCK_MS + 1))
                .isFalse();
        assertThat(p.holderOf(3)).isEqualTo("b");
    }

    @Test
    void releaseRedeliversAndRejectArchives() {
        p.acquire("a", TEN, 500, LOCK_MS, 0);
        assertThat(p.acknowledge("a", 0, 0, AcknowledgeType.REJECT, 1)).isTrue();
        assertThat(p.acknowledge("a", 1, 1, AcknowledgeType.RELEASE, 1)).isTrue();
        assertThat(p.stateOf(1)).isEqualTo(RecordState.AVAILABLE);
        assertThat(p.startOffset()).isEqualTo(1);
        assertThat(p.acquire("b", TEN, 500, LOCK_MS, 2)).containsExactly(new SharePartition.AcquiredRange(1, 1, 2));
    }

    @Test
    void theDeliveryCountLimitArchivesARecord() {
        SharePartition limited = new SharePartition(0, 2, 2000);
        List<long[]> one = List.<long[]>of(new long[] {0, 0}, new long[] {1, 1});
        limited.acquire("a", one, 1, LOCK_MS, 0);
        limited.acknowledge("a", 0, 0, AcknowledgeType.RELEASE, 1);
        assertThat(limited.acquire("a", one, 1, LOCK_MS, 2)).containsExactly(new SharePartition.AcquiredRange(0, 0, 2));
        limited.expireLocks(2 + LOCK_MS);
        assertThat(limited.stateOf(0)).isNull();
        assertThat(limited.startOffset()).isEqualTo(1);
        assertThat(limited.acquire("a", one, 5, LOCK_MS, 3 + LOCK_MS))
                .containsExactly(new SharePartition.AcquiredRange(1, 1, 1));
    }

    @Test
    void offsetsACompactionRemovedAreArchivedGaps() {
        p.acquire("a", List.<long[]>of(new long[] {0, 1}, new long[] {5, 6}), 500, LOCK_MS, 0);
        assertThat(p.stateOf(3)).isEqualTo(RecordState.ARCHIVED);
        p.acknowledge("a", 0, 1, AcknowledgeType.ACCEPT, 1);
        assertThat(p.startOffset()).isEqualTo(5);
        p.checkInvariants();
    }

    @Test
    void aClosedSessionReleasesItsMembersRecords() {
        p.acquire("a", List.<long[]>of(new long[] {0, 4}), 500, LOCK_MS, 0);
        p.acquire("b", List.<long[]>of(new long[] {5, 9}), 500, LOCK_MS, 0);
        assertThat(p.releaseAll("a")).isEqualTo(5);
        assertThat(p.nextFetchOffset(1)).isEqualTo(0);
        assertThat(p.holderOf(7)).isEqualTo("b");
    }

    @Test
    void aSnapshotRestoresFinalStatesAndMakesAcquiredRecordsAvailable() {
        p.acquire("a", TEN, 500, LOCK_MS, 0);
        p.acknowledge("a", 2, 3, AcknowledgeType.ACCEPT, 1);
        p.acknowledge("a", 0, 0, AcknowledgeType.ACCEPT, 1);
        SharePartition back = SharePartition.restore(p.snapshot(), 5, 2000);
        assertThat(back.startOffset()).isEqualTo(1);
        assertThat(back.endOffset()).isEqualTo(10);
        assertThat(back.stateOf(1)).isEqualTo(RecordState.AVAILABLE);
        assertThat(back.stateOf(2)).isEqualTo(RecordState.ACKNOWLEDGED);
        assertThat(back.deliveryCountOf(1)).isEqualTo(1);
        assertThat(back.acquire("b", TEN, 500, LOCK_MS, 5))
                .containsExactly(new SharePartition.AcquiredRange(1, 1, 2), new SharePartition.AcquiredRange(4, 9, 2));
        back.checkInvariants();
    }

    @Test
    void aRenewKeepsTheRecordsWithTheMemberAndRestartsTheirLocks() {
        p.acquire("a", TEN, 500, LOCK_MS, 0);
        assertThat(p.acknowledge("a", 0, 4, AcknowledgeType.RENEW, LOCK_MS - 1, LOCK_MS))
                .isTrue();
        assertThat(p.nextLockDeadlineMs()).as("5-9 keep their first lock").isEqualTo(LOCK_MS);
        p.expireLocks(LOCK_MS);
        assertThat(p.holderOf(2)).as("renewed: still a's").isEqualTo("a");
        assertThat(p.holderOf(7)).as("not renewed: expired").isNull();
        assertThat(p.deliveryCountOf(2)).isEqualTo(1);
        assertThat(p.acknowledge("b", 0, 4, AcknowledgeType.RENEW, LOCK_MS, LOCK_MS))
                .as("only the holder renews")
                .isFalse();
        p.expireLocks(2 * LOCK_MS - 1);
        assertThat(p.holderOf(2)).isNull();
        p.checkInvariants();
    }
}
