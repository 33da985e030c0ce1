package io.varve.broker.group;

import io.varve.coordinator.group.record.StreamsGroupValue;
import io.varve.coordinator.group.streams.StreamsApi;
import io.varve.coordinator.group.streams.TasksTuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.message.StreamsGroupDescribeResponseData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.apache.kafka.common.message.StreamsGroupHeartbeatResponseData;

/** Between the streams group wire messages and the coordinator's own records. */
final class StreamsWire {
    /** StreamsGroupDescribe v1's status when no topology description is kept (Varve keeps none). */
    private static final byte TOPOLOGY_DESCRIPTION_NOT_STORED = 1;

    private StreamsWire() {}

    static StreamsGroupValue.Topology topology(StreamsGroupHeartbeatRequestData.Topology t) {
        if (t == null) {
            return null;
        }
        List<StreamsGroupValue.Subtopology> subs = new ArrayList<>();
        for (StreamsGroupHeartbeatRequestData.Subtopology s : t.subtopologies()) {
            List<StreamsGroupValue.CopartitionGroup> groups = new ArrayList<>();
            for (StreamsGroupHeartbeatRequestData.CopartitionGroup g : s.copartitionGroups()) {
                groups.add(new StreamsGroupValue.CopartitionGroup(
                        g.sourceTopics(), g.sourceTopicRegex(), g.repartitionSourceTopics()));
            }
            subs.add(new StreamsGroupValue.Subtopology(
                    s.subtopologyId(),
                    s.sourceTopics(),
                    s.sourceTopicRegex(),
                    topicInfos(s.stateChangelogTopics()),
                    s.repartitionSinkTopics(),
                    topicInfos(s.repartitionSourceTopics()),
                    groups));
        }
        return new StreamsGroupValue.Topology(t.epoch(), subs);
    }

    private static List<StreamsGroupValue.TopicInfo> topicInfos(List<StreamsGroupHeartbeatRequestData.TopicInfo> in) {
        List<StreamsGroupValue.TopicInfo> out = new ArrayList<>();
        for (StreamsGroupHeartbeatRequestData.TopicInfo t : in) {
            Map<String, String> configs = new TreeMap<>();
            t.topicConfigs().forEach(kv -> configs.put(kv.key(), kv.value()));
            out.add(new StreamsGroupValue.TopicInfo(t.name(), t.partitions(), t.replicationFactor(), configs));
        }
        return out;
    }

    static Map<String, Set<Integer>> tasks(List<StreamsGroupHeartbeatRequestData.TaskIds> in) {
        if (in == null) {
            return null;
        }
        Map<String, Set<Integer>> out = new HashMap<>();
        in.forEach(t ->
                out.computeIfAbsent(t.subtopologyId(), k -> new TreeSet<>()).addAll(t.partitions()));
        return out;
    }

    static Map<String, String> tags(List<StreamsGroupHeartbeatRequestData.KeyValue> in) {
        Map<String, String> out = new TreeMap<>();
        in.forEach(kv -> out.put(kv.key(), kv.value()));
        return out;
    }

    static List<StreamsGroupHeartbeatResponseData.TaskIds> heartbeatTasks(Map<String, Set<Integer>> tasks) {
        List<StreamsGroupHeartbeatResponseData.TaskIds> out = new ArrayList<>();
        new TreeMap<>(tasks)
                .forEach((sub, ps) -> out.add(new StreamsGroupHeartbeatResponseData.TaskIds()
                        .setSubtopologyId(sub)
                        .setPartitions(new ArrayList<>(new TreeSet<>(ps)))));
        return out;
    }

    static List<StreamsGroupHeartbeatResponseData.TopicPartition> topicPartitions(Map<String, Set<Integer>> byTopic) {
        List<StreamsGroupHeartbeatResponseData.TopicPartition> out = new ArrayList<>();
        new TreeMap<>(byTopic)
                .forEach((topic, ps) -> out.add(new StreamsGroupHeartbeatResponseData.TopicPartition()
                        .setTopic(topic)
                        .setPartitions(new ArrayList<>(new TreeSet<>(ps)))));
        return out;
    }

    static StreamsGroupDescribeResponseData.DescribedGroup described(
            StreamsApi.GroupDescription d, int authorizedOperations, boolean withDescription) {
        StreamsGroupDescribeResponseData.DescribedGroup g = new StreamsGroupDescribeResponseData.DescribedGroup()
                .setGroupId(d.groupId())
                .setErrorCode(d.error().code())
                .setErrorMessage(d.errorMessage())
                .setGroupState(d.state())
                .setGroupEpoch(d.groupEpoch())
                .setAssignmentEpoch(d.assignmentEpoch())
                .setAuthorizedOperations(authorizedOperations)
                .setTopologyDescriptionStatus(withDescription ? TOPOLOGY_DESCRIPTION_NOT_STORED : 0);
        if (d.error() != org.apache.kafka.common.protocol.Errors.NONE) {
            return g;
        }
        g.setAssignorName(io.varve.coordinator.group.streams.StickyTaskAssignor.NAME);
        if (d.topology() != null) {
            StreamsGroupDescribeResponseData.Topology t = new StreamsGroupDescribeResponseData.Topology()
                    .setEpoch(d.topology().epoch());
            if (d.sourceTopics() != null) {
                List<StreamsGroupDescribeResponseData.Subtopology> subs = new ArrayList<>();
                for (StreamsGroupValue.Subtopology s : d.topology().subtopologies()) {
                    List<String> sources = new ArrayList<>(d.sourceTopics().getOrDefault(s.id(), List.of()));
                    s.repartitionSourceTopics().forEach(r -> sources.remove(r.name()));
                    subs.add(new StreamsGroupDescribeResponseData.Subtopology()
                            .setSubtopologyId(s.id())
                            .setSourceTopics(sources)
                            .setRepartitionSinkTopics(new ArrayList<>(s.repartitionSinkTopics()))
                            .setStateChangelogTopics(describedTopics(s.stateChangelogTopics()))
                            .setRepartitionSourceTopics(describedTopics(s.repartitionSourceTopics())));
                }
                t.setSubtopologies(subs);
            }
            g.setTopology(t);
        }
        for (StreamsApi.DescribedMember m : d.members()) {
            StreamsGroupDescribeResponseData.Member member = new StreamsGroupDescribeResponseData.Member()
                    .setMemberId(m.memberId())
                    .setMemberEpoch(m.memberEpoch())
                    .setInstanceId(m.instanceId())
                    .setRackId(m.rackId())
                    .setClientId(m.clientId())
                    .setClientHost(m.clientHost())
                    .setTopologyEpoch(m.topologyEpoch())
                    .setProcessId(m.processId())
                    .setAssignment(assignment(m.assignment()))
                    .setTargetAssignment(assignment(m.targetAssignment()))
                    .setIsClassic(false);
            if (m.userEndpoint() != null) {
                member.setUserEndpoint(new StreamsGroupDescribeResponseData.Endpoint()
                        .setHost(m.userEndpoint().host())
                        .setPort(m.userEndpoint().port()));
            }
            List<StreamsGroupDescribeResponseData.KeyValue> tags = new ArrayList<>();
            new TreeMap<>(m.clientTags())
                    .forEach((k, v) -> tags.add(new StreamsGroupDescribeResponseData.KeyValue()
                            .setKey(k)
                            .setValue(v)));
            member.setClientTags(tags);
            g.members().add(member);
        }
        return g;
    }

    private static List<StreamsGroupDescribeResponseData.TopicInfo> describedTopics(
            List<StreamsGroupValue.TopicInfo> in) {
        List<StreamsGroupDescribeResponseData.TopicInfo> out = new ArrayList<>();
        for (StreamsGroupValue.TopicInfo t : in) {
            List<StreamsGroupDescribeResponseData.KeyValue> configs = new ArrayList<>();
            new TreeMap<>(t.configs())
                    .forEach((k, v) -> configs.add(new StreamsGroupDescribeResponseData.KeyValue()
                            .setKey(k)
                            .setValue(v)));
            out.add(new StreamsGroupDescribeResponseData.TopicInfo()
                    .setName(t.name())
                    .setPartitions(t.partitions())
                    .setReplicationFactor(t.replicationFactor())
                    .setTopicConfigs(configs));
        }
        return out;
    }

    private static StreamsGroupDescribeResponseData.Assignment assignment(TasksTuple t) {
        return new StreamsGroupDescribeResponseData.Assignment()
                .setActiveTasks(describedTasks(t.active()))
                .setStandbyTasks(describedTasks(t.standby()))
                .setWarmupTasks(describedTasks(t.warmup()));
    }

    private static List<StreamsGroupDescribeResponseData.TaskIds> describedTasks(Map<String, Set<Integer>> tasks) {
        List<StreamsGroupDescribeResponseData.TaskIds> out = new ArrayList<>();
        new TreeMap<>(tasks)
                .forEach((sub, ps) -> out.add(new StreamsGroupDescribeResponseData.TaskIds()
                        .setSubtopologyId(sub)
                        .setPartitions(new ArrayList<>(new TreeSet<>(ps)))));
        return out;
    }
}
