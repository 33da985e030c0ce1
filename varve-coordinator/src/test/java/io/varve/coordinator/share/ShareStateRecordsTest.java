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
        claimsOne[13] = 1;
        assertThatThrownBy(() -> ShareStateRecords.decodeValue(claimsOne)).hasMessageContaining("1 batches");
    }
}
