package io.varve.coordinator.share;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class ShareStateRecordsTest {
    @Test
    void keysAndValuesRoundTrip() {
        Uuid topic = Uuid.randomUuid();
        assertThat(ShareStateRecords.decodeKey(ShareStateRecords.key("grüppe", topic, 7)))
                .isEqualTo(new ShareStateRecords.Key("grüppe", topic, 7));
        SharePartition.Snapshot s = new SharePartition.Snapshot(
                10,
                List.of(
                        new SharePartition.StateBatch(10, 12, RecordState.AVAILABLE, 2),
                        new SharePartition.StateBatch(13, 13, RecordState.ARCHIVED, 5),
                        new SharePartition.StateBatch(14, 20, RecordState.ACKNOWLEDGED, 1)));
        assertThat(ShareStateRecords.decodeValue(ShareStateRecords.value(s))).isEqualTo(s);
    }

    @Test
    void theEpochsRoundTripAndAVersionZeroValueReadsAsStateEpochZeroWithoutALeaderEpoch() {
        SharePartition.Snapshot s =
                new SharePartition.Snapshot(4, List.of(new SharePartition.StateBatch(4, 6, RecordState.ARCHIVED, 3)));
        assertThat(ShareStateRecords.decodeStored(ShareStateRecords.value(new ShareStateRecords.Stored(7, 12, s))))
                .isEqualTo(new ShareStateRecords.Stored(7, 12, s));
        // version 0, as written before the share coordinator: start 4, one batch 4-6 ARCHIVED at count 3
        java.nio.ByteBuffer v0 = java.nio.ByteBuffer.allocate(2 + 8 + 4 + 19);
        v0.putShort((short) 0)
                .putLong(4)
                .putInt(1)
                .putLong(4)
                .putLong(6)
                .put((byte) 4)
                .putShort((short) 3);
        assertThat(ShareStateRecords.decodeStored(v0.array())).isEqualTo(new ShareStateRecords.Stored(0, -1, s));
    }

    @Test
    void anAcquiredRecordIsWrittenAsAvailable() {
        SharePartition.Snapshot s =
                new SharePartition.Snapshot(0, List.of(new SharePartition.StateBatch(0, 3, RecordState.ACQUIRED, 1)));
        assertThat(ShareStateRecords.decodeValue(ShareStateRecords.value(s))
                        .batches()
                        .get(0)
                        .state())
                .isEqualTo(RecordState.AVAILABLE);
    }

    @Test
    void anUnknownVersionOrATruncatedValueIsRefused() {
        byte[] value = ShareStateRecords.value(new SharePartition.Snapshot(0, List.of()));
        value[1] = 9;
        assertThatThrownBy(() -> ShareStateRecords.decodeValue(value)).hasMessageContaining("version 9");
        byte[] claimsOne = ShareStateRecords.value(new SharePartition.Snapshot(0, List.of()));
        claimsOne[21] = 1; // the low byte of the batch count (after version, two epochs and the start offset)
        assertThatThrownBy(() -> ShareStateRecords.decodeValue(claimsOne)).hasMessageContaining("1 batches");
    }
}
