package io.varve.coordinator.group.consumer;

import io.varve.coordinator.group.assignor.Assignments;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;

/**
 * Moves one member towards its target assignment (Kafka's "current assignment builder"). A member first gives
 * up what it must revoke and keeps its epoch; only once it reports those partitions gone does it move to the
 * target epoch and take the partitions that are free. Partitions still owned by others are taken on a later
 * heartbeat, so no partition is ever owned by two members.
 */
final class MemberReconciler {
    private MemberReconciler() {}

    /**
     * @param owned the partitions the member reports owning, or null when it did not report them
     */
    static void reconcile(ConsumerGroup group, ConsumerMember m, Map<Uuid, Set<Integer>> owned) {
        switch (m.state) {
            case STABLE -> {
                if (m.memberEpoch != group.assignmentEpoch) {
                    computeNext(group, m);
                }
            }
            case UNREVOKED_PARTITIONS -> {
                if (owned != null && !Assignments.intersects(owned, m.pendingRevocation)) {
                    computeNext(group, m);
                }
            }
            case UNRELEASED_PARTITIONS -> computeNext(group, m);
        }
    }

    private static void computeNext(ConsumerGroup group, ConsumerMember m) {
        Map<Uuid, Set<Integer>> target = group.targetOf(m.memberId);
        Map<Uuid, Set<Integer>> kept = Assignments.mutable();
        Map<Uuid, Set<Integer>> revoke = Assignments.mutable();
        Map<Uuid, Set<Integer>> free = Assignments.mutable();
        boolean unreleased = false;
        Set<Uuid> topics = new HashSet<>(m.assigned.keySet());
        topics.addAll(target.keySet());
        for (Uuid topic : topics) {
            Set<Integer> current = m.assigned.getOrDefault(topic, Set.of());
            Set<Integer> wanted = target.getOrDefault(topic, Set.of());
            for (int p : current) {
                if (wanted.contains(p)) {
                    Assignments.add(kept, topic, p);
                } else {
                    Assignments.add(revoke, topic, p);
                }
            }
            for (int p : wanted) {
                if (current.contains(p)) {
                    continue;
                }
                String owner = group.ownerOf(topic, p);
                if (owner == null || owner.equals(m.memberId)) {
                    Assignments.add(free, topic, p);
                } else {
                    unreleased = true;
                }
            }
        }
        if (!revoke.isEmpty()) {
            group.setAssignment(m, kept, revoke);
            m.state = MemberState.UNREVOKED_PARTITIONS;
            return;
        }
        free.forEach((t, ps) -> ps.forEach(p -> Assignments.add(kept, t, p)));
        group.setAssignment(m, kept, Assignments.mutable());
        m.state = unreleased ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE;
        if (m.memberEpoch != group.assignmentEpoch) {
            m.previousMemberEpoch = m.memberEpoch;
            m.memberEpoch = group.assignmentEpoch;
        }
    }
}
