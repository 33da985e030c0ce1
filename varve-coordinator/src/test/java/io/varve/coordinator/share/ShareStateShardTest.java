package io.varve.coordinator.share;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ShareStateShardTest {
    private static final ShareStateRecords.Key KEY = new ShareStateRecords.Key("g", Uuid.randomUuid(), 0);
    private static final List<SharePartition.StateBatch> ONE_ACKED =
            List.of(new SharePartition.StateBatch(5, 5, RecordState.ACKNOWLEDGED, 1));

    private final ShareStateShard shard = new ShareStateShard();

    @Test
    void aStateNobodyWroteReadsAsUninitializedAndWritesNothing() {
        ShareStateShard.Outcome o = shard.read(KEY, 3);
        assertThat(o.error()).isEqualTo(Errors.NONE);
        assertThat(o.state().snapshot().startOffset()).isEqualTo(ShareStateShard.UNINITIALIZED_START_OFFSET);
        assertThat(o.state().stateEpoch()).isZero();
        assertThat(o.record()).isNull();
    }

    @Test
    void aWriteIsReadBackWithItsEpochsAndItsRecordReplaysToTheSameState() {
        ShareStateShard.Outcome w = shard.write(KEY, 0, 4, 5, ONE_ACKED);
        assertThat(w.ok()).isTrue();
        ShareStateShard.Outcome r = shard.read(KEY, 4);
        assertThat(r.state()).isEqualTo(new ShareStateRecords.Stored(0, 4, new SharePartition.Snapshot(5, ONE_ACKED)));
        assertThat(r.record()).as("the same leader epoch: nothing to remember").isNull();

        ShareStateShard replayed = new ShareStateShard();
        replayed.replay(KEY, ShareStateRecords.decodeStored(w.record().value()));
        assertThat(replayed.read(KEY, 4).state()).isEqualTo(r.state());
    }

    @Test
    void aNewLeadersReadFencesTheDeposedLeadersWritesAndReads() {
        shard.write(KEY, 0, 4, 5, ONE_ACKED);
        ShareStateShard.Outcome newLeader = shard.read(KEY, 5);
        assertThat(newLeader.record())
                .as("the new leader epoch is written down")
                .isNotNull();
        assertThat(ShareStateRecords.decodeStored(newLeader.record().value()).leaderEpoch())
                .isEqualTo(5);

        ShareStateShard.Outcome zombie = shard.write(KEY, 0, 4, 6, List.of());
        assertThat(zombie.error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(zombie.record()).isNull();
        assertThat(shard.read(KEY, 4).error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(shard.summary(KEY, 4).error()).isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(shard.read(KEY, 5).state().snapshot().startOffset())
                .as("the fenced write changed nothing")
                .isEqualTo(5);
    }

    @Test
    void anInitializationStartsAfreshAndFencesWritesOfTheOlderStateEpoch() {
        shard.write(KEY, 0, 1, 5, ONE_ACKED);
        ShareStateShard.Outcome init = shard.initialize(KEY, 1, 100);
        assertThat(init.ok()).isTrue();
        assertThat(init.state().snapshot()).isEqualTo(new SharePartition.Snapshot(100, List.of()));

        assertThat(shard.write(KEY, 0, 1, 6, List.of()).error()).isEqualTo(Errors.FENCED_STATE_EPOCH);
        assertThat(shard.initialize(KEY, 0, 7).error()).isEqualTo(Errors.FENCED_STATE_EPOCH);
        assertThat(shard.write(KEY, 1, 1, 101, List.of()).ok()).isTrue();
    }

    @Test
    void aWriteWithoutAStartOffsetKeepsTheStoredOneAndMergesItsBatches() {
        shard.write(KEY, 0, 1, 5, List.of(new SharePartition.StateBatch(5, 9, RecordState.AVAILABLE, 1)));
        shard.write(KEY, 0, 1, -1, List.of(new SharePartition.StateBatch(7, 7, RecordState.ARCHIVED, 2)));
        assertThat(shard.read(KEY, 1).state().snapshot())
                .isEqualTo(new SharePartition.Snapshot(
                        5,
                        List.of(
                                new SharePartition.StateBatch(5, 6, RecordState.AVAILABLE, 1),
                                new SharePartition.StateBatch(7, 7, RecordState.ARCHIVED, 2),
                                new SharePartition.StateBatch(8, 9, RecordState.AVAILABLE, 1))));
    }

    @Test
    void deleteWritesATombstoneOnlyWhenThereIsAState() {
        assertThat(shard.delete(KEY).record()).isNull();
        shard.write(KEY, 0, 1, 5, ONE_ACKED);
        ShareStateShard.Outcome d = shard.delete(KEY);
        assertThat(d.record().value()).isNull();
        assertThat(shard.read(KEY, 1).state().snapshot().startOffset()).isEqualTo(-1);
    }

    @Test
    void badKeysAndRangesAreInvalidRequests() {
        assertThat(shard.read(new ShareStateRecords.Key("", KEY.topicId(), 0), 0)
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(shard.read(new ShareStateRecords.Key("g", Uuid.ZERO_UUID, 0), 0)
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(shard.write(new ShareStateRecords.Key("g", KEY.topicId(), -1), 0, 0, 0, List.of())
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
        assertThat(shard.write(KEY, 0, 0, 0, List.of(new SharePartition.StateBatch(9, 3, RecordState.AVAILABLE, 1)))
                        .error())
                .isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void theDeliveryCompleteCountCountsFinishedOffsetsFromTheStartOn() {
        SharePartition.Snapshot s = new SharePartition.Snapshot(
                5,
                List.of(
                        new SharePartition.StateBatch(5, 6, RecordState.AVAILABLE, 1),
                        new SharePartition.StateBatch(7, 9, RecordState.ACKNOWLEDGED, 1),
                        new SharePartition.StateBatch(10, 10, RecordState.ARCHIVED, 3)));
        assertThat(ShareStateShard.deliveryCompleteCount(s)).isEqualTo(4);
    }
}
