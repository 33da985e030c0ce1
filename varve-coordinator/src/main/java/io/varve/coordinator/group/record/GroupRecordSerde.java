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
 * partition for offsets). Value: int16 value version, then the fields. Version 0 everywhere, except a consumer
 * group holding classic members (online migration), written as version 1: each member then ends with a flag and,
 * when set, its classic session timeout and protocols. A group without classic members stays version 0, so a
 * Varve that predates migration still reads it.
 */
public final class GroupRecordSerde {
    static final short OFFSET_KEY = 1;
    static final short CLASSIC_GROUP_KEY = 2;
    static final short CONSUMER_GROUP_KEY = 3;
    /** Kept clear of the types other group kinds may take next (4, 5). */
    static final short STREAMS_GROUP_KEY = 6;

    static final short VALUE_VERSION = 0;
    static final short CONSUMER_GROUP_CLASSIC_MEMBERS_VERSION = 1;
    /** A classic group written by a downgrade: version 0 and a trailing flag (rebalance on load). */
    static final short CLASSIC_GROUP_REBALANCING_VERSION = 1;

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
                .writeShort(value.rebalanceOnLoad() ? CLASSIC_GROUP_REBALANCING_VERSION : VALUE_VERSION)
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
        if (value.rebalanceOnLoad()) {
            w.writeByte((byte) 1);
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
        boolean classicMembers = value.members().stream().anyMatch(m -> m.classic() != null);
        RecordWriter w = new RecordWriter()
                .writeShort(classicMembers ? CONSUMER_GROUP_CLASSIC_MEMBERS_VERSION : VALUE_VERSION)
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
            if (classicMembers) {
                writeClassicMember(w, m.classic());
            }
        }
        Map<String, Map<Uuid, Set<Integer>>> target = new TreeMap<>(value.targetAssignment());
        w.writeInt(target.size());
        target.forEach((memberId, a) -> w.writeString(memberId).writeAssignment(a));
        return new CoordinatorRecord(key, w.toByteArray());
    }

    private static void writeClassicMember(RecordWriter w, ConsumerGroupValue.ClassicMemberValue c) {
        w.writeByte((byte) (c == null ? 0 : 1));
        if (c != null) {
            w.writeInt(c.sessionTimeoutMs()).writeInt(c.protocols().size());
            c.protocols().forEach(p -> w.writeString(p.name()).writeBytes(p.metadata()));
        }
    }

    private static ConsumerGroupValue.ClassicMemberValue readClassicMember(RecordReader r) {
        if (r.readByte() == 0) {
            return null;
        }
        int sessionTimeoutMs = r.readInt();
        int n = r.readCount();
        List<ConsumerGroupValue.ClassicProtocolValue> protocols = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            protocols.add(new ConsumerGroupValue.ClassicProtocolValue(r.readString(), r.readBytes()));
        }
        return new ConsumerGroupValue.ClassicMemberValue(sessionTimeoutMs, protocols);
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
        short version = VALUE_VERSION;
        if (value != null) {
            version = value.readShort();
            boolean known = version == VALUE_VERSION
                    || (type == CONSUMER_GROUP_KEY && version == CONSUMER_GROUP_CLASSIC_MEMBERS_VERSION)
                    || (type == CLASSIC_GROUP_KEY && version == CLASSIC_GROUP_REBALANCING_VERSION);
            if (!known) {
                throw new CorruptRecordException(
                        "value version " + version + " of record type " + type + " is newer than this Varve reads");
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
                        new GroupRecord.ClassicGroup(groupId, value == null ? null : readClassic(value, version));
                    case CONSUMER_GROUP_KEY ->
                        new GroupRecord.ConsumerGroup(groupId, value == null ? null : readConsumer(value, version));
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

    private static ClassicGroupValue readClassic(RecordReader r, short version) {
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
        boolean rebalanceOnLoad = version == CLASSIC_GROUP_REBALANCING_VERSION && r.readByte() == 1;
        return new ClassicGroupValue(
                protocolType, generation, protocolName, leader, stateTimestamp, members, rebalanceOnLoad);
    }

    private static ConsumerGroupValue readConsumer(RecordReader r, short version) {
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
                    r.readAssignment(),
                    version == CONSUMER_GROUP_CLASSIC_MEMBERS_VERSION ? readClassicMember(r) : null));
        }
        int targets = r.readCount();
        Map<String, Map<Uuid, Set<Integer>>> target = new HashMap<>();
        for (int i = 0; i < targets; i++) {
            target.put(r.readString(), r.readAssignment());
        }
        return new ConsumerGroupValue(groupEpoch, assignmentEpoch, topics, members, target);
    }
}
