package io.varve.coordinator.group.streams;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Kafka 4.4's default streams task assignor ("sticky"), written from its contract: every active task to exactly
 * one member, balanced so that members' active task counts differ by at most one; a task stays with the member
 * that had it in the previous target when that keeps the balance, and otherwise prefers a member that held it as
 * a standby (its state is warm there). Each task gets up to {@code numStandbyReplicas} standbys, each in a
 * different process from the active and from each other (one process shares one state directory), again sticky
 * and then least loaded. Like Kafka's sticky assignor it assigns no warm-up tasks. Pure and deterministic: members
 * and tasks are visited in id order.
 */
public final class StickyTaskAssignor {
    public static final String NAME = "sticky";

    /** A member as the assignor sees it. */
    public record MemberSpec(String memberId, String processId) {}

    /** One task: a subtopology and a partition of its inputs. */
    record Task(String subtopology, int partition) implements Comparable<Task> {
        @Override
        public int compareTo(Task o) {
            int c = subtopology.compareTo(o.subtopology);
            return c != 0 ? c : Integer.compare(partition, o.partition);
        }
    }

    private StickyTaskAssignor() {}

    /**
     * @param numTasks tasks per subtopology
     * @param previous the previous target of each member (members no longer present are ignored)
     */
    public static Map<String, TasksTuple> assign(
            List<MemberSpec> members,
            Map<String, Integer> numTasks,
            Map<String, TasksTuple> previous,
            int numStandbyReplicas) {
        Map<String, TasksTuple> result = new TreeMap<>();
        if (members.isEmpty()) {
            return result;
        }
        List<MemberSpec> sorted = new ArrayList<>(members);
        sorted.sort(Comparator.comparing(MemberSpec::memberId));
        List<Task> tasks = new ArrayList<>();
        new TreeMap<>(numTasks).forEach((sub, n) -> {
            for (int p = 0; p < n; p++) {
                tasks.add(new Task(sub, p));
            }
        });
        Map<String, Map<String, Set<Integer>>> active = new HashMap<>();
        Map<String, Map<String, Set<Integer>>> standby = new HashMap<>();
        sorted.forEach(m -> {
            active.put(m.memberId(), TaskIds.mutable());
            standby.put(m.memberId(), TaskIds.mutable());
        });
        assignActive(sorted, tasks, previous, active);
        if (numStandbyReplicas > 0) {
            assignStandbys(sorted, tasks, previous, active, standby, numStandbyReplicas);
        }
        for (MemberSpec m : sorted) {
            result.put(m.memberId(), new TasksTuple(active.get(m.memberId()), standby.get(m.memberId()), Map.of()));
        }
        return result;
    }

    private static TasksTuple previousOf(Map<String, TasksTuple> previous, String memberId) {
        return previous.getOrDefault(memberId, TasksTuple.EMPTY);
    }

    private static void assignActive(
            List<MemberSpec> members,
            List<Task> tasks,
            Map<String, TasksTuple> previous,
            Map<String, Map<String, Set<Integer>>> active) {
        int ceil = (tasks.size() + members.size() - 1) / members.size();
        Map<String, Integer> load = new HashMap<>();
        members.forEach(m -> load.put(m.memberId(), 0));
        List<Task> unassigned = new ArrayList<>();
        for (Task t : tasks) {
            String owner = null;
            for (MemberSpec m : members) {
                if (TaskIds.contains(previousOf(previous, m.memberId()).active(), t.subtopology(), t.partition())) {
                    owner = m.memberId();
                    break;
                }
            }
            if (owner != null && load.get(owner) < ceil) {
                TaskIds.add(active.get(owner), t.subtopology(), t.partition());
                load.merge(owner, 1, Integer::sum);
            } else {
                unassigned.add(t);
            }
        }
        for (Task t : unassigned) {
            String chosen = null;
            for (MemberSpec m : members) {
                if (load.get(m.memberId()) < ceil
                        && TaskIds.contains(
                                previousOf(previous, m.memberId()).standby(), t.subtopology(), t.partition())) {
                    chosen = m.memberId();
                    break;
                }
            }
            if (chosen == null) {
                chosen = leastLoaded(members, load, m -> true);
            }
            TaskIds.add(active.get(chosen), t.subtopology(), t.partition());
            load.merge(chosen, 1, Integer::sum);
        }
        // Stickiness may leave more members at the ceiling than the division allows; move tasks until balanced.
        for (int moves = 0; moves <= tasks.size(); moves++) {
            String most = mostLoaded(members, load);
            String least = leastLoaded(members, load, m -> true);
            if (load.get(most) - load.get(least) <= 1) {
                break;
            }
            Task moved = pickToMove(active.get(most), previousOf(previous, least));
            active.get(most).get(moved.subtopology()).remove(moved.partition());
            TaskIds.add(active.get(least), moved.subtopology(), moved.partition());
            load.merge(most, -1, Integer::sum);
            load.merge(least, 1, Integer::sum);
        }
    }

    /** Prefers a task the receiver held as a standby before; else the highest task (a stable choice). */
    private static Task pickToMove(Map<String, Set<Integer>> from, TasksTuple receiverPrevious) {
        Task last = null;
        for (Map.Entry<String, Set<Integer>> e : new TreeMap<>(from).entrySet()) {
            for (int p : e.getValue()) {
                if (TaskIds.contains(receiverPrevious.standby(), e.getKey(), p)) {
                    return new Task(e.getKey(), p);
                }
                last = new Task(e.getKey(), p);
            }
        }
        return last;
    }

    private static void assignStandbys(
            List<MemberSpec> members,
            List<Task> tasks,
            Map<String, TasksTuple> previous,
            Map<String, Map<String, Set<Integer>>> active,
            Map<String, Map<String, Set<Integer>>> standby,
            int replicas) {
        Map<String, String> processOf = new HashMap<>();
        members.forEach(m -> processOf.put(m.memberId(), m.processId()));
        Map<String, Integer> standbyLoad = new HashMap<>();
        Map<String, Integer> totalLoad = new HashMap<>();
        members.forEach(m -> {
            standbyLoad.put(m.memberId(), 0);
            totalLoad.put(m.memberId(), TaskIds.count(active.get(m.memberId())));
        });
        int ceil = (tasks.size() * replicas + members.size() - 1) / members.size();
        for (Task t : tasks) {
            Set<String> usedProcesses = new HashSet<>();
            for (MemberSpec m : members) {
                if (TaskIds.contains(active.get(m.memberId()), t.subtopology(), t.partition())) {
                    usedProcesses.add(m.processId());
                }
            }
            for (int r = 0; r < replicas; r++) {
                String chosen = null;
                for (MemberSpec m : members) {
                    TasksTuple before = previousOf(previous, m.memberId());
                    boolean hadState = TaskIds.contains(before.standby(), t.subtopology(), t.partition())
                            || TaskIds.contains(before.active(), t.subtopology(), t.partition());
                    if (hadState && !usedProcesses.contains(m.processId()) && standbyLoad.get(m.memberId()) < ceil) {
                        chosen = m.memberId();
                        break;
                    }
                }
                if (chosen == null) {
                    chosen = leastLoaded(members, totalLoad, m -> !usedProcesses.contains(m.processId()));
                }
                if (chosen == null) {
                    break; // fewer processes than replicas + 1: Kafka leaves the rest unassigned too
                }
                TaskIds.add(standby.get(chosen), t.subtopology(), t.partition());
                usedProcesses.add(processOf.get(chosen));
                standbyLoad.merge(chosen, 1, Integer::sum);
                totalLoad.merge(chosen, 1, Integer::sum);
            }
        }
    }

    private static String leastLoaded(
            List<MemberSpec> members, Map<String, Integer> load, java.util.function.Predicate<MemberSpec> allowed) {
        String best = null;
        for (MemberSpec m : members) {
            if (allowed.test(m) && (best == null || load.get(m.memberId()) < load.get(best))) {
                best = m.memberId();
            }
        }
        return best;
    }

    private static String mostLoaded(List<MemberSpec> members, Map<String, Integer> load) {
        String best = null;
        for (MemberSpec m : members) {
            if (best == null || load.get(m.memberId()) > load.get(best)) {
                best = m.memberId();
            }
        }
        return best;
    }
}
