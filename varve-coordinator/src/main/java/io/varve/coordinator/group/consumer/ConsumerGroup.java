package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.Group;
import io.varve.coordinator.group.GroupType;
import io.varve.coordinator.group.record.ConsumerGroupValue;
import io.varve.coordinator.group.record.ConsumerGroupValue.TopicMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;

/**
 * The state of one KIP-848 consumer group: epochs, members, the target assignment, the topics the target was
 * computed from, and which member owns (or is still revoking) each partition.
 */
public final class ConsumerGroup implements Group {
    private final String groupId;
    int groupEpoch;
    int assignmentEpoch;
    final TreeMap<String, ConsumerMember> members = new TreeMap<>();
    final Map<String, String> staticMembers = new HashMap<>();
    Map<String, Map<Uuid, Set<Integer>>> targetAssignment = new HashMap<>();
    Map<String, TopicMetadata> subscribedTopics = Map.of();
    /** Partition to the member that has it assigned or pending revocation: a partition is free when absent. */
    private final Map<Uuid, Map<Integer, String>> owners = new HashMap<>();

    ConsumerGroup(String groupId) {
        this.groupId = groupId;
    }

    @Override
    public String groupId() {
        return groupId;
    }

    @Override
    public GroupType type() {
        return GroupType.CONSUMER;
    }

    /** Empty, Assigning (target older than the group epoch), Reconciling (a member not yet at its target), Stable. */
    @Override
    public String stateName() {
        if (members.isEmpty()) {
            return "Empty";
        }
        if (assignmentEpoch < groupEpoch) {
            return "Assigning";
        }
        for (ConsumerMember m : members.values()) {
            if (m.memberEpoch != assignmentEpoch || m.state != MemberState.STABLE) {
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
        return "consumer";
    }

    public int groupEpoch() {
        return groupEpoch;
    }

    public int assignmentEpoch() {
        return assignmentEpoch;
    }

    public Collection<ConsumerMember> members() {
        return members.values();
    }

    public ConsumerMember member(String memberId) {
        return members.get(memberId);
    }

    public Map<Uuid, Set<Integer>> targetOf(String memberId) {
        return targetAssignment.getOrDefault(memberId, Map.of());
    }

    public Map<String, TopicMetadata> subscribedTopics() {
        return subscribedTopics;
    }

    String staticMemberId(String instanceId) {
        return instanceId == null ? null : staticMembers.get(instanceId);
    }

    /** The member owning or revoking a partition, or null when it is free. */
    String ownerOf(Uuid topicId, int partition) {
        Map<Integer, String> byPartition = owners.get(topicId);
        return byPartition == null ? null : byPartition.get(partition);
    }

    void addMember(ConsumerMember m) {
        members.put(m.memberId, m);
        if (m.instanceId != null) {
            staticMembers.put(m.instanceId, m.memberId);
        }
        own(m);
    }

    void removeMember(String memberId) {
        ConsumerMember m = members.remove(memberId);
        if (m == null) {
            return;
        }
        if (m.instanceId != null && memberId.equals(staticMembers.get(m.instanceId))) {
            staticMembers.remove(m.instanceId);
        }
        disown(m);
        targetAssignment.remove(memberId);
    }

    /** Replaces a member's assignment and pending revocations, keeping the ownership index in step. */
    void setAssignment(ConsumerMember m, Map<Uuid, Set<Integer>> assigned, Map<Uuid, Set<Integer>> pending) {
        disown(m);
        m.assigned = assigned;
        m.pendingRevocation = pending;
        own(m);
    }

    private void own(ConsumerMember m) {
        forEachPartition(m.assigned, (t, p) -> claim(m.memberId, t, p));
        forEachPartition(m.pendingRevocation, (t, p) -> claim(m.memberId, t, p));
    }

    private void claim(String memberId, Uuid topic, int partition) {
        String previous = owners.computeIfAbsent(topic, t -> new HashMap<>()).put(partition, memberId);
        if (previous != null && !previous.equals(memberId)) {
            throw new IllegalStateException("partition " + topic + "-" + partition + " of group " + groupId
                    + " owned by both " + previous + " and " + memberId);
        }
    }

    private void disown(ConsumerMember m) {
        forEachPartition(m.assigned, (t, p) -> release(m.memberId, t, p));
        forEachPartition(m.pendingRevocation, (t, p) -> release(m.memberId, t, p));
    }

    private void release(String memberId, Uuid topic, int partition) {
        Map<Integer, String> byPartition = owners.get(topic);
        if (byPartition != null && memberId.equals(byPartition.get(partition))) {
            byPartition.remove(partition);
            if (byPartition.isEmpty()) {
                owners.remove(topic);
            }
        }
    }

    private interface PartitionVisitor {
        void visit(Uuid topic, int partition);
    }

    private static void forEachPartition(Map<Uuid, Set<Integer>> a, PartitionVisitor v) {
        a.forEach((t, ps) -> ps.forEach(p -> v.visit(t, p)));
    }

    ConsumerGroupValue toValue() {
        List<ConsumerGroupValue.Member> ms = new ArrayList<>();
        members.values().forEach(m -> ms.add(m.toValue()));
        return new ConsumerGroupValue(groupEpoch, assignmentEpoch, subscribedTopics, ms, targetAssignment);
    }

    static ConsumerGroup fromValue(String groupId, ConsumerGroupValue v) {
        ConsumerGroup g = new ConsumerGroup(groupId);
        g.groupEpoch = v.groupEpoch();
        g.assignmentEpoch = v.assignmentEpoch();
        g.subscribedTopics = Map.copyOf(v.subscribedTopics());
        v.members().forEach(m -> g.addMember(ConsumerMember.fromValue(m)));
        g.targetAssignment = new HashMap<>(v.targetAssignment());
        return g;
    }
}
