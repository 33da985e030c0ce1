package io.varve.coordinator.group.record;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** The value of a streams group record (key type {@link GroupRecordSerde#STREAMS_GROUP_KEY}), version 0. */
final class StreamsGroupRecordSerde {
    private StreamsGroupRecordSerde() {}

    static void write(RecordWriter w, StreamsGroupValue v) {
        w.writeInt(v.groupEpoch())
                .writeInt(v.assignmentEpoch())
                .writeInt(v.endpointInformationEpoch())
                .writeLong(v.metadataHash());
        if (v.topology() == null) {
            w.writeByte(0);
        } else {
            w.writeByte(1)
                    .writeInt(v.topology().epoch())
                    .writeInt(v.topology().subtopologies().size());
            for (StreamsGroupValue.Subtopology s : v.topology().subtopologies()) {
                w.writeString(s.id())
                        .writeStrings(s.sourceTopics())
                        .writeStrings(s.sourceTopicRegex())
                        .writeStrings(s.repartitionSinkTopics());
                writeTopicInfos(w, s.stateChangelogTopics());
                writeTopicInfos(w, s.repartitionSourceTopics());
                w.writeInt(s.copartitionGroups().size());
                for (StreamsGroupValue.CopartitionGroup g : s.copartitionGroups()) {
                    writeShorts(w, g.sourceTopics());
                    writeShorts(w, g.sourceTopicRegex());
                    writeShorts(w, g.repartitionSources());
                }
            }
        }
        w.writeInt(v.members().size());
        for (StreamsGroupValue.Member m : v.members()) {
            w.writeString(m.memberId())
                    .writeString(m.instanceId())
                    .writeString(m.rackId())
                    .writeString(m.clientId())
                    .writeString(m.clientHost())
                    .writeInt(m.rebalanceTimeoutMs())
                    .writeInt(m.topologyEpoch())
                    .writeString(m.processId());
            if (m.userEndpoint() == null) {
                w.writeByte(0);
            } else {
                w.writeByte(1)
                        .writeString(m.userEndpoint().host())
                        .writeInt(m.userEndpoint().port());
            }
            writeMap(w, m.clientTags());
            w.writeInt(m.memberEpoch()).writeInt(m.previousMemberEpoch()).writeByte(m.state());
            writeTuple(w, m.assigned());
            writeTasks(w, m.activePendingRevocation());
        }
        Map<String, StreamsGroupValue.Tasks> target = new TreeMap<>(v.targetAssignment());
        w.writeInt(target.size());
        target.forEach((memberId, t) -> {
            w.writeString(memberId);
            writeTuple(w, t);
        });
    }

    static StreamsGroupValue read(RecordReader r) {
        int groupEpoch = r.readInt();
        int assignmentEpoch = r.readInt();
        int endpointEpoch = r.readInt();
        long hash = r.readLong();
        StreamsGroupValue.Topology topology = null;
        if (r.readByte() == 1) {
            int epoch = r.readInt();
            int n = r.readCount();
            List<StreamsGroupValue.Subtopology> subs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String id = r.readString();
                List<String> sources = r.readStrings();
                List<String> regex = r.readStrings();
                List<String> sinks = r.readStrings();
                List<StreamsGroupValue.TopicInfo> changelogs = readTopicInfos(r);
                List<StreamsGroupValue.TopicInfo> repartitions = readTopicInfos(r);
                int groups = r.readCount();
                List<StreamsGroupValue.CopartitionGroup> copartition = new ArrayList<>(groups);
                for (int g = 0; g < groups; g++) {
                    copartition.add(
                            new StreamsGroupValue.CopartitionGroup(readShorts(r), readShorts(r), readShorts(r)));
                }
                subs.add(new StreamsGroupValue.Subtopology(
                        id, sources, regex, changelogs, sinks, repartitions, copartition));
            }
            topology = new StreamsGroupValue.Topology(epoch, subs);
        }
        int n = r.readCount();
        List<StreamsGroupValue.Member> members = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String memberId = r.readString();
            String instanceId = r.readString();
            String rackId = r.readString();
            String clientId = r.readString();
            String clientHost = r.readString();
            int rebalanceTimeoutMs = r.readInt();
            int topologyEpoch = r.readInt();
            String processId = r.readString();
            StreamsGroupValue.Endpoint endpoint =
                    r.readByte() == 1 ? new StreamsGroupValue.Endpoint(r.readString(), r.readInt()) : null;
            Map<String, String> tags = readMap(r);
            members.add(new StreamsGroupValue.Member(
                    memberId,
                    instanceId,
                    rackId,
                    clientId,
                    clientHost,
                    rebalanceTimeoutMs,
                    topologyEpoch,
                    processId,
                    endpoint,
                    tags,
                    r.readInt(),
                    r.readInt(),
                    r.readByte(),
                    readTuple(r),
                    readTasks(r)));
        }
        int targets = r.readCount();
        Map<String, StreamsGroupValue.Tasks> target = new HashMap<>();
        for (int i = 0; i < targets; i++) {
            target.put(r.readString(), readTuple(r));
        }
        return new StreamsGroupValue(groupEpoch, assignmentEpoch, endpointEpoch, hash, topology, members, target);
    }

    private static void writeShorts(RecordWriter w, List<Short> values) {
        w.writeInt(values.size());
        values.forEach(v -> w.writeShort(v));
    }

    private static List<Short> readShorts(RecordReader r) {
        int n = r.readCount();
        List<Short> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(r.readShort());
        }
        return out;
    }

    private static void writeMap(RecordWriter w, Map<String, String> map) {
        Map<String, String> sorted = new TreeMap<>(map);
        w.writeInt(sorted.size());
        sorted.forEach((k, v) -> w.writeString(k).writeString(v));
    }

    private static Map<String, String> readMap(RecordReader r) {
        int n = r.readCount();
        Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            out.put(r.readString(), r.readString());
        }
        return out;
    }

    private static void writeTopicInfos(RecordWriter w, List<StreamsGroupValue.TopicInfo> infos) {
        w.writeInt(infos.size());
        for (StreamsGroupValue.TopicInfo t : infos) {
            w.writeString(t.name()).writeInt(t.partitions()).writeShort(t.replicationFactor());
            writeMap(w, t.configs());
        }
    }

    private static List<StreamsGroupValue.TopicInfo> readTopicInfos(RecordReader r) {
        int n = r.readCount();
        List<StreamsGroupValue.TopicInfo> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new StreamsGroupValue.TopicInfo(r.readString(), r.readInt(), r.readShort(), readMap(r)));
        }
        return out;
    }

    /** Subtopologies in id order, partitions ascending: equal task sets always encode to equal bytes. */
    private static void writeTasks(RecordWriter w, Map<String, Set<Integer>> tasks) {
        Map<String, Set<Integer>> sorted = new TreeMap<>(tasks);
        w.writeInt(sorted.size());
        sorted.forEach((subtopology, partitions) -> {
            w.writeString(subtopology);
            Set<Integer> ps = new TreeSet<>(partitions);
            w.writeInt(ps.size());
            ps.forEach(w::writeInt);
        });
    }

    private static Map<String, Set<Integer>> readTasks(RecordReader r) {
        int n = r.readCount();
        Map<String, Set<Integer>> out = new HashMap<>();
        for (int i = 0; i < n; i++) {
            String subtopology = r.readString();
            int count = r.readCount();
            Set<Integer> ps = new TreeSet<>();
            for (int p = 0; p < count; p++) {
                ps.add(r.readInt());
            }
            out.put(subtopology, ps);
        }
        return out;
    }

    private static void writeTuple(RecordWriter w, StreamsGroupValue.Tasks t) {
        writeTasks(w, t.active());
        writeTasks(w, t.standby());
        writeTasks(w, t.warmup());
    }

    private static StreamsGroupValue.Tasks readTuple(RecordReader r) {
        return new StreamsGroupValue.Tasks(readTasks(r), readTasks(r), readTasks(r));
    }
}
