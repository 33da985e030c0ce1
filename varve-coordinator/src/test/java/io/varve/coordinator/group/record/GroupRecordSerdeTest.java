package io.varve.coordinator.group.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

class GroupRecordSerdeTest {
    @Test
    void offsetRecordsAndTombstonesRoundTrip() {
        OffsetValue v = new OffsetValue(42, 3, "meta", 1000, -1);
        GroupRecord r = GroupRecordSerde.decode(GroupRecordSerde.offset("g", new TopicPartition("t", 7), v));
        assertThat(r).isEqualTo(new GroupRecord.Offset("g", new TopicPartition("t", 7), v));
        GroupRecord tomb = GroupRecordSerde.decode(GroupRecordSerde.offset("g", new TopicPartition("t", 7), null));
        assertThat(((GroupRecord.Offset) tomb).value()).isNull();
    }

    @Test
    void classicAndConsumerGroupsRoundTrip() {
        ClassicGroupValue classic = new ClassicGroupValue(
                "consumer",
                4,
                "range",
                "m1",
                99,
                List.of(new ClassicGroupValue.Member(
                        "m1", "i1", "c", "/h", 300, 10, new byte[] {1, 2}, new byte[] {3})));
        ClassicGroupValue back = ((GroupRecord.ClassicGroup)
                        GroupRecordSerde.decode(GroupRecordSerde.classicGroup("g", classic)))
                .value();
        assertThat(back.generationId()).isEqualTo(4);
        assertThat(back.members().get(0).subscription()).containsExactly(1, 2);
        assertThat(back.members().get(0).assignment()).containsExactly(3);

        Uuid t = Uuid.randomUuid();
        ConsumerGroupValue consumer = new ConsumerGroupValue(
                5,
                5,
                Map.of("orders", new ConsumerGroupValue.TopicMetadata(t, 12)),
                List.of(new ConsumerGroupValue.Member(
                        "m",
                        null,
                        "rack",
                        "c",
                        "/h",
                        1000,
                        List.of("orders"),
                        "o.*",
                        "uniform",
                        5,
                        4,
                        (byte) 2,
                        Map.of(t, Set.of(1, 2)),
                        Map.of(),
                        null)),
                Map.of("m", Map.of(t, Set.of(1, 2, 3))));
        ConsumerGroupValue cback = ((GroupRecord.ConsumerGroup)
                        GroupRecordSerde.decode(GroupRecordSerde.consumerGroup("g", consumer)))
                .value();
        assertThat(cback).isEqualTo(consumer);
    }

    @Test
    void aClassicGroupWrittenByADowngradeKeepsItsRebalanceOnLoadFlag() {
        ClassicGroupValue downgraded = new ClassicGroupValue("consumer", 4, "range", "a", 9L, List.of(), true);
        CoordinatorRecord written = GroupRecordSerde.classicGroup("g", downgraded);
        assertThat(ByteBuffer.wrap(written.value()).getShort()).isEqualTo((short) 1);
        assertThat(((GroupRecord.ClassicGroup) GroupRecordSerde.decode(written)).value())
                .isEqualTo(downgraded);
        ClassicGroupValue plain = new ClassicGroupValue("consumer", 4, "range", "a", 9L, List.of());
        assertThat(ByteBuffer.wrap(GroupRecordSerde.classicGroup("g", plain).value())
                        .getShort())
                .isEqualTo((short) 0);
    }

    @Test
    void aConsumerGroupWithClassicMembersRoundTripsAsVersionOneAndOneWithoutStaysVersionZero() {
        Uuid t = Uuid.randomUuid();
        ConsumerGroupValue.Member consumerMember = new ConsumerGroupValue.Member(
                "c",
                null,
                null,
                "c",
                "/h",
                1000,
                List.of("orders"),
                null,
                null,
                3,
                2,
                (byte) 0,
                Map.of(),
                Map.of(),
                null);
        ConsumerGroupValue.Member classicMember = new ConsumerGroupValue.Member(
                "k",
                "instance",
                null,
                "k",
                "/h",
                2000,
                List.of("orders"),
                null,
                null,
                3,
                3,
                (byte) 0,
                Map.of(t, Set.of(0)),
                Map.of(),
                new ConsumerGroupValue.ClassicMemberValue(
                        15_000,
                        List.of(
                                new ConsumerGroupValue.ClassicProtocolValue("range", new byte[] {1, 2}),
                                new ConsumerGroupValue.ClassicProtocolValue("cooperative-sticky", new byte[0]))));
        ConsumerGroupValue mixed = new ConsumerGroupValue(
                3,
                3,
                Map.of("orders", new ConsumerGroupValue.TopicMetadata(t, 1)),
                List.of(consumerMember, classicMember),
                Map.of("k", Map.of(t, Set.of(0))));
        CoordinatorRecord written = GroupRecordSerde.consumerGroup("g", mixed);
        assertThat(ByteBuffer.wrap(written.value()).getShort()).isEqualTo((short) 1);
        assertThat(((GroupRecord.ConsumerGroup) GroupRecordSerde.decode(written)).value())
                .isEqualTo(mixed);

        ConsumerGroupValue plain = new ConsumerGroupValue(3, 3, Map.of(), List.of(consumerMember), Map.of());
        CoordinatorRecord plainRecord = GroupRecordSerde.consumerGroup("g", plain);
        assertThat(ByteBuffer.wrap(plainRecord.value()).getShort()).isEqualTo((short) 0);
        assertThat(((GroupRecord.ConsumerGroup) GroupRecordSerde.decode(plainRecord)).value())
                .isEqualTo(plain);
    }

    @Test
    void unknownVersionsAndTruncatedRecordsAreRejected() {
        CoordinatorRecord r =
                GroupRecordSerde.offset("g", new TopicPartition("t", 0), new OffsetValue(1, -1, "", 0, -1));
        byte[] future = r.value().clone();
        future[1] = 9;
        assertThatThrownBy(() -> GroupRecordSerde.decode(new CoordinatorRecord(r.key(), future)))
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("version 9");
        byte[] truncated = Arrays.copyOf(r.value(), r.value().length - 3);
        assertThatThrownBy(() -> GroupRecordSerde.decode(new CoordinatorRecord(r.key(), truncated)))
                .isInstanceOf(CorruptRecordException.class);
        byte[] badType = r.key().clone();
        badType[1] = 77;
        assertThatThrownBy(() -> GroupRecordSerde.decode(new CoordinatorRecord(badType, r.value())))
                .isInstanceOf(CorruptRecordException.class)
                .hasMessageContaining("unknown record type");
    }
}
