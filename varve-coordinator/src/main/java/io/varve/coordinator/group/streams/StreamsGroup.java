package io.varve.coordinator.group.streams;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupType;
import io.varve.coordinator.group.record.StreamsGroupValue;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The state of one streams group: epochs, the topology, members, the target assignment, and which member owns
 * (or is still revoking) each active task. The resolved topology is derived state, recomputed when the topics
 * change, never persisted.
 */
public final class StreamsGroup implements Group {
    private final String groupId;
    int groupEpoch;
    int assignmentEpoch;
    int endpointInformationEpoch;
    long metadataHash;
    StreamsGroupValue.Topology topology;
    final TreeMap<String, StreamsMember> members = new TreeMap<>();
    final Map<String, String> staticMembers = new HashMap<>();
    Map<String, TasksTuple> targetAssignment = new HashMap<>();
    /** True once a member asked the whole application to shut down (until the group empties). */
    boolean shutdownRequested;

    ConfiguredTopology configured = ConfiguredTopology.NONE;
    long configuredTopicsVersion = Long.MIN_VALUE;
    /** Active task to the member that has it assigned or pending revocation. */
    private final Map<String, Map<Integer, String>> activeOwners = new HashMap<>();

    StreamsGroup(String groupId) {
        this.groupId = groupId;
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public GroupType type() {
        return GroupType.STREAMS;
    }

    /** Kafka's states: Empty, NotReady (topics missing), Assigning, Reconciling, Stable. */
    @Override
    public String stateName() {
        if (members.isEmpty()) {
            return "Empty";
        }
        if (!configured.ready()) {
            return "NotReady";
        }
        if (assignmentEpoch < groupEpoch) {
            return "Assigning";
        }
        for (StreamsMember m : members.values()) {
            if (m.memberEpoch != assignmentEpoch || m.state != StreamsMemberState.STABLE) {
                return "Reconciling";
            }
        }
        return "Stable";
    }

    @Override
    public boolean hasNoMembers() {
        return members.isEmpty();
    }

    @Override
    public String protocolType() {
        return "streams";
    }

    public int groupEpoch() {
        return groupEpoch;
    }

    public int assignmentEpoch() {
        return assignmentEpoch;
    }

    public StreamsGroupValue.Topology topology() {
        return topology;
    }

    public ConfiguredTopology configuredTopology() {
        return configured;
    }

    public Collection<StreamsMember> members() {
        return members.values();
    }

    public StreamsMember member(String memberId) {
        return members.get(memberId);
    }

    public TasksTuple targetOf(String memberId) {
        return targetAssignment.getOrDefault(memberId, TasksTuple.EMPTY);
    }

    /** Every source topic of the topology (regexes resolved at the last resolution). */
    public Set<String> sourceTopicNames() {
        Set<String> out = new HashSet<>();
        configured.sourceTopics().values().forEach(out::addAll);
        return out;
    }

    String staticMemberId(String instanceId) {
        return instanceId == null ? null : staticMembers.get(instanceId);
    }

    /** The member owning or revoking an active task, or null when it is free. */
    String activeOwnerOf(String subtopology, int partition) {
        Map<Integer, String> byPartition = activeOwners.get(subtopology);
        return byPartition == null ? null : byPartition.get(partition);
    }

    void addMember(StreamsMember m) {
        members.put(m.memberId, m);
        if (m.instanceId != null) {
            staticMembers.put(m.instanceId, m.memberId);
        }
        own(m);
    }

    void removeMember(String memberId) {
        StreamsMember m = members.remove(memberId);
        if (m == null) {
            return;
        }
        if (m.instanceId != null && memberId.equals(staticMembers.get(m.instanceId))) {
            staticMembers.remove(m.instanceId);
        }
        disown(m);
        targetAssignment.remove(memberId);
        if (members.isEmpty()) {
            shutdownRequested = false;
        }
    }

    /** Replaces a member's tasks and pending revocations, keeping the ownership index in step. */
    void setAssignment(StreamsMember m, TasksTuple assigned, Map<String, Set<Integer>> pendingRevocation) {
        disown(m);
        m.assigned = assigned;
        m.activePendingRevocation = TaskIds.immutable(pendingRevocation);
        own(m);
    }

    private void own(StreamsMember m) {
        forEach(m.assigned.active(), (s, p) -> claim(m.memberId, s, p));
        forEach(m.activePendingRevocation, (s, p) -> claim(m.memberId, s, p));
    }

    private void claim(String memberId, String subtopology, int partition) {
        String previous =
                activeOwners.computeIfAbsent(subtopology, t -> new HashMap<>()).put(partition, memberId);
        if (previous != null && !previous.equals(memberId)) {
            throw new IllegalStateException("active task " + subtopology + "_" + partition + " of group " + groupId
                    + " owned by both " + previous + " and " + memberId);
        }
    }

    private void disown(StreamsMember m) {
        forEach(m.assigned.active(), (s, p) -> release(m.memberId, s, p));
        forEach(m.activePendingRevocation, (s, p) -> release(m.memberId, s, p));
    }

    private void release(String memberId, String subtopology, int partition) {
        Map<Integer, String> byPartition = activeOwners.get(subtopology);
        if (byPartition != null && memberId.equals(byPartition.get(partition))) {
            byPartition.remove(partition);
            if (byPartition.isEmpty()) {
                activeOwners.remove(subtopology);
            }
        }
    }

    private interface TaskVisitor {
        void visit(String subtopology, int partition);
    }

    private static void forEach(Map<String, Set<Integer>> tasks, TaskVisitor v) {
        tasks.forEach((s, ps) -> ps.forEach(p -> v.visit(s, p)));
    }

    StreamsGroupValue toValue() {
        List<StreamsGroupValue.Member> ms = new ArrayList<>();
        members.values().forEach(m -> ms.add(m.toValue()));
        Map<String, StreamsGroupValue.Tasks> target = new HashMap<>();
        targetAssignment.forEach((id, t) -> target.put(id, t.toValue()));
        return new StreamsGroupValue(
                groupEpoch, assignmentEpoch, endpointInformationEpoch, metadataHash, topology, ms, target);
    }

    static StreamsGroup fromValue(String groupId, StreamsGroupValue v) {
        StreamsGroup g = new StreamsGroup(groupId);
        g.groupEpoch = v.groupEpoch();
        g.assignmentEpoch = v.assignmentEpoch();
        g.endpointInformationEpoch = v.endpointInformationEpoch();
        g.metadataHash = v.metadataHash();
        g.topology = v.topology();
        v.members().forEach(m -> g.addMember(StreamsMember.fromValue(m)));
        v.targetAssignment().forEach((id, t) -> g.targetAssignment.put(id, TasksTuple.fromValue(t)));
        return g;
    }
}
