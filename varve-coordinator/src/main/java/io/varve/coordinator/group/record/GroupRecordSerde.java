package io.varve.coordinator.group.record;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Encodes and decodes coordinator records. Key: int16 record type, then the identity (group id; group, topic,
 * partition for offsets). Value: int16 value version, then the fields. Version 0 is the only version so far.
 */
public final class GroupRecordSerde {
    static final short OFFSET_KEY = 1;
    static final short CLASSIC_GROUP_KEY = 2;
    static final short CONSUMER_GROUP_KEY = 3;
    /** Kept clear of the types other group kinds may take next (4, 5). */
    static final short STREAMS_GROUP_KEY = 6;

    static final short VALUE_VERSION = 0;

    private GroupRecordSerde() {}

    public static CoordinatorRecord offset(String groupId, TopicPartition tp, OffsetValue value) {
        byte[] key = new RecordWriter()
                .writeShort(OFFSET_KEY)
                .writeString(groupId)
                .writeString(tp.topic())
                .writeInt(tp.partition())
                .toByteArray();
        if (value == null) {
            return new CoordinatorRecord(key, null);
        }
        return new CoordinatorRecord(
                key,
                new RecordWriter()
                        .writeShort(VALUE_VERSION)
                        .writeLong(value.offset())
                        .writeInt(value.leaderEpoch())
                        .writeString(value.metadata())
                        .writeLong(value.commitTimestampMs())
                        .writeLong(value.expireTimestampMs())
                        .toByteArray());
    }

    public static CoordinatorRecord classicGroup(String groupId, ClassicGroupValue value) {
        byte[] key = new RecordWriter()
                .writeShort(CLASSIC_GROUP_KEY)
                .writeString(groupId)
                .toByteArray();
        if (value == null) {
            return new CoordinatorRecord(key, null);
        }
        RecordWriter w = new RecordWriter()
                .writeShort(VALUE_VERSION)
                .writeString(value.protocolType())
                .writeInt(value.generationId())
                .writeString(value.protocolName())
                .writeString(value.leaderId())
                .writeLong(value.stateTimestampMs())
                .writeInt(value.members().size());
        for (ClassicGroupValue.Member m : value.members()) {
            w.writeString(m.memberId())
                    .writeString(m.groupInstanceId())
                    .writeString(m.clientId())
                    .writeString(m.clientHost())
                    .writeInt(m.rebalanceTimeoutMs())
                    .writeInt(m.sessionTimeoutMs())
                    .writeBytes(m.subscription())
                    .writeBytes(m.assignment());
        }
        return new CoordinatorRecord(key, w.toByteArray());
    }

    public static CoordinatorRecord consumerGroup(String groupId, ConsumerGroupValue value) {
        byte[] key = new RecordWriter()
                .writeShort(CONSUMER_GROUP_KEY)
                .writeString(groupId)
                .toByteArray();
        if (value == null) {
            return new CoordinatorRecord(key, null);
        }
        RecordWriter w = new RecordWriter()
                .writeShort(VALUE_VERSION)
                .writeInt(value.groupEpoch())
                .writeInt(value.assignmentEpoch());
        Map<String, ConsumerGroupValue.TopicMetadata> topics = new TreeMap<>(value.subscribedTopics());
        w.writeInt(topics.size());
        topics.forEach((name, t) -> w.writeString(name).writeUuid(t.topicId()).writeInt(t.numPartitions()));
        w.writeInt(value.members().size());
        for (ConsumerGroupValue.Member m : value.members()) {
            w.writeString(m.memberId())
                    .writeString(m.instanceId())
                    .writeString(m.rackId())
                    .writeString(m.clientId())
                    .writeString(m.clientHost())
                    .writeInt(m.rebalanceTimeoutMs())
                    .writeStrings(m.subscribedTopicNames())
                    .writeString(m.subscribedTopicRegex())
                    .writeString(m.serverAssignor())
                    .writeInt(m.memberEpoch())
                    .writeInt(m.previousMemberEpoch())
                    .writeByte(m.state())
                    .writeAssignment(m.assigned())
                    .writeAssignment(m.pendingRevocation());
        }
        Map<String, Map<Uuid, Set<Integer>>> target = new TreeMap<>(value.targetAssignment());
        w.writeInt(target.size());
        target.forEach((memberId, a) -> w.writeString(memberId).writeAssignment(a));
        return new CoordinatorRecord(key, w.toByteArray());
    }

    public static CoordinatorRecord streamsGroup(String groupId, StreamsGroupValue value) {
        byte[] key = new RecordWriter()
                .writeShort(STREAMS_GROUP_KEY)
                .writeString(groupId)
                .toByteArray();
        if (value == null) {
            return new CoordinatorRecord(key, null);
        }
        RecordWriter w = new RecordWriter().writeShort(VALUE_VERSION);
        StreamsGroupRecordSerde.write(w, value);
        return new CoordinatorRecord(key, w.toByteArray());
    }

    public static GroupRecord decode(CoordinatorRecord record) {
        RecordReader key = new RecordReader(record.key());
        short type = key.readShort();
        String groupId = key.readString();
        if (groupId == null) {
            throw new CorruptRecordException("record key of type " + type + " without a group id");
        }
        RecordReader value = record.value() == null ? null : new RecordReader(record.value());
        if (value != null) {
            short version = value.readShort();
            if (version != VALUE_VERSION) {
                throw new CorruptRecordException("value version " + version + " of record type " + type
                        + " is newer than this Varve reads (" + VALUE_VERSION + ")");
            }
        }
        GroupRecord decoded =
                switch (type) {
                    case OFFSET_KEY -> {
                        TopicPartition tp = new TopicPartition(key.readString(), key.readInt());
                        yield new GroupRecord.Offset(
                                groupId,
                                tp,
                                value == null
                                        ? null
                                        : new OffsetValue(
                                                value.readLong(),
                                                value.readInt(),
                                                value.readString(),
                                                value.readLong(),
                                                value.readLong()));
                    }
                    case CLASSIC_GROUP_KEY ->
                        new GroupRecord.ClassicGroup(groupId, value == null ? null : readClassic(value));
                    case CONSUMER_GROUP_KEY ->
                        new GroupRecord.ConsumerGroup(groupId, value == null ? null : readConsumer(value));
                    case STREAMS_GROUP_KEY ->
                        new GroupRecord.StreamsGroup(
                                groupId, value == null ? null : StreamsGroupRecordSerde.read(value));
                    default -> throw new CorruptRecordException("unknown record type " + type);
                };
        key.expectEnd();
        if (value != null) {
            value.expectEnd();
        }
        return decoded;
    }

    private static ClassicGroupValue readClassic(RecordReader r) {
        String protocolType = r.readString();
        int generation = r.readInt();
        String protocolName = r.readString();
        String leader = r.readString();
        long stateTimestamp = r.readLong();
        int n = r.readCount();
        List<ClassicGroupValue.Member> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            members.add(new ClassicGroupValue.Member(
                    r.readString(),
                    r.readString(),
                    r.readString(),
                    r.readString(),
                    r.readInt(),
                    r.readInt(),
                    r.readBytes(),
                    r.readBytes()));
        }
        return new ClassicGroupValue(protocolType, generation, protocolName, leader, stateTimestamp, members);
    }

    private static ConsumerGroupValue readConsumer(RecordReader r) {
        int groupEpoch = r.readInt();
        int assignmentEpoch = r.readInt();
        int topicCount = r.readCount();
        Map<String, ConsumerGroupValue.TopicMetadata> topics = new HashMap<>();
        for (int i = 0; i < topicCount; i++) {
            topics.put(r.readString(), new ConsumerGroupValue.TopicMetadata(r.readUuid(), r.readInt()));
        }
        int n = r.readCount();
        List<ConsumerGroupValue.Member> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            members.add(new ConsumerGroupValue.Member(
                    r.readString(),
                    r.readString(),
                    r.readString(),
                    r.readString(),
                    r.readString(),
                    r.readInt(),
                    r.readStrings(),
                    r.readString(),
                    r.readString(),
                    r.readInt(),
                    r.readInt(),
                    r.readByte(),
                    r.readAssignment(),
                    r.readAssignment()));
        }
        int targets = r.readCount();
        Map<String, Map<Uuid, Set<Integer>>> target = new HashMap<>();
        for (int i = 0; i < targets; i++) {
            target.put(r.readString(), r.readAssignment());
        }
        return new ConsumerGroupValue(groupEpoch, assignmentEpoch, topics, members, target);
    }
}
