package io.varve.coordinator.group.record;

import org.apache.kafka.common.TopicPartition;

/** A decoded {@code __consumer_offsets} record; a null value is a tombstone. */
public sealed interface GroupRecord {
    String groupId();

    record Offset(String groupId, TopicPartition partition, OffsetValue value) implements GroupRecord {}

    record ClassicGroup(String groupId, ClassicGroupValue value) implements GroupRecord {}

    record ConsumerGroup(String groupId, ConsumerGroupValue value) implements GroupRecord {}

    record StreamsGroup(String groupId, StreamsGroupValue value) implements GroupRecord {}
}
