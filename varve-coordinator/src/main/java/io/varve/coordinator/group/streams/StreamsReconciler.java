package io.varve.coordinator.group.streams;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Moves one member towards its target tasks. Active tasks are exclusive: a member first gives up the active tasks
 * it must revoke and keeps its epoch; only once it reports them gone does it move to the target epoch and take
 * the active tasks nobody else owns. A standby or warm-up task is held back while another member of the same
 * process still runs it as active (they would share its state directory). So no active task is ever owned by two
 * members, which is what keeps exactly-once processing exact.
 */
final class StreamsReconciler {
    private StreamsReconciler() {}

    /** @param ownedActive the active tasks the member reports, or null when it did not report them */
    static void reconcile(StreamsGroup group, StreamsMember m, Map<String, Set<Integer>> ownedActive) {
        switch (m.state) {
            case STABLE -> {
                if (m.memberEpoch != group.assignmentEpoch) {
                    computeNext(group, m);
                }
            }
            case UNREVOKED_TASKS -> {
                if (ownedActive != null && !TaskIds.intersects(ownedActive, m.activePendingRevocation)) {
                    computeNext(group, m);
                }
            }
            case UNRELEASED_TASKS -> computeNext(group, m);
        }
    }

    private static void computeNext(StreamsGroup group, StreamsMember m) {
        TasksTuple target = group.targetOf(m.memberId);
        Map<String, Set<Integer>> kept = TaskIds.mutable();
        Map<String, Set<Integer>> revoke = TaskIds.mutable();
        m.assigned
                .active()
                .forEach((s, ps) -> ps.forEach(p -> {
                    if (TaskIds.contains(target.active(), s, p)) {
                        TaskIds.add(kept, s, p);
                    } else {
                        TaskIds.add(revoke, s, p);
                    }
                }));
        if (!revoke.isEmpty()) {
            group.setAssignment(
                    m,
                    new TasksTuple(
                            kept,
                            intersection(m.assigned.standby(), target.standby()),
                            intersection(m.assigned.warmup(), target.warmup())),
                    revoke);
            m.state = StreamsMemberState.UNREVOKED_TASKS;
            return;
        }
        boolean unreleased = false;
        for (Map.Entry<String, Set<Integer>> e : target.active().entrySet()) {
            for (int p : e.getValue()) {
                String owner = group.activeOwnerOf(e.getKey(), p);
                if (owner == null || owner.equals(m.memberId)) {
                    TaskIds.add(kept, e.getKey(), p);
                } else {
                    unreleased = true;
                }
            }
        }
        Map<String, Set<Integer>> standby = TaskIds.mutable();
        Map<String, Set<Integer>> warmup = TaskIds.mutable();
        unreleased |= takeShared(group, m, target.standby(), standby);
        unreleased |= takeShared(group, m, target.warmup(), warmup);
        group.setAssignment(m, new TasksTuple(kept, standby, warmup), Map.of());
        m.state = unreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE;
        if (m.memberEpoch != group.assignmentEpoch) {
            m.previousMemberEpoch = m.memberEpoch;
            m.memberEpoch = group.assignmentEpoch;
        }
    }

    /** Adds the target tasks no other member of this process runs as active; true when some had to wait. */
    private static boolean takeShared(
            StreamsGroup group, StreamsMember m, Map<String, Set<Integer>> wanted, Map<String, Set<Integer>> into) {
        boolean waiting = false;
        for (Map.Entry<String, Set<Integer>> e : wanted.entrySet()) {
            for (int p : e.getValue()) {
                String owner = group.activeOwnerOf(e.getKey(), p);
                StreamsMember ownerMember = owner == null ? null : group.member(owner);
                if (ownerMember != null && !owner.equals(m.memberId) && ownerMember.processId.equals(m.processId)) {
                    waiting = true;
                } else {
                    TaskIds.add(into, e.getKey(), p);
                }
            }
        }
        return waiting;
    }

    private static Map<String, Set<Integer>> intersection(Map<String, Set<Integer>> a, Map<String, Set<Integer>> b) {
        Map<String, Set<Integer>> out = TaskIds.mutable();
        a.forEach((s, ps) -> {
            Set<Integer> both = new HashSet<>(ps);
            both.retainAll(b.getOrDefault(s, Set.of()));
            both.forEach(p -> TaskIds.add(out, s, p));
        });
        return out;
    }
}
