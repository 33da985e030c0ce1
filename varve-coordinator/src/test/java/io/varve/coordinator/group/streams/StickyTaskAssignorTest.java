package io.varve.coordinator.group.streams;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class StickyTaskAssignorTest {
    private static final Map<String, Integer> TASKS = Map.of("0", 4, "1", 4);

    private static StickyTaskAssignor.MemberSpec member(String id, String process) {
        return new StickyTaskAssignor.MemberSpec(id, process);
    }

    private static Set<String> activeTasks(TasksTuple t) {
        Set<String> out = new HashSet<>();
        t.active().forEach((s, ps) -> ps.forEach(p -> out.add(s + "_" + p)));
        return out;
    }

    private static Set<String> standbyTasks(TasksTuple t) {
        Set<String> out = new HashSet<>();
        t.standby().forEach((s, ps) -> ps.forEach(p -> out.add(s + "_" + p)));
        return out;
    }

    private static void assertEveryTaskActiveExactlyOnce(Map<String, TasksTuple> result, Map<String, Integer> tasks) {
        List<String> all = new ArrayList<>();
        result.values().forEach(t -> all.addAll(activeTasks(t)));
        int expected = tasks.values().stream().mapToInt(Integer::intValue).sum();
        assertThat(all).hasSize(expected).doesNotHaveDuplicates();
    }

    private static void assertBalanced(Map<String, TasksTuple> result) {
        int min = Integer.MAX_VALUE;
        int max = 0;
        for (TasksTuple t : result.values()) {
            min = Math.min(min, TaskIds.count(t.active()));
            max = Math.max(max, TaskIds.count(t.active()));
        }
        assertThat(max - min)
                .as("active tasks per member differ by at most one")
                .isLessThanOrEqualTo(1);
    }

    @Test
    void everyActiveTaskGoesToExactlyOneMemberAndMembersAreBalanced() {
        Map<String, TasksTuple> result = StickyTaskAssignor.assign(
                List.of(member("a", "p1"), member("b", "p1"), member("c", "p2")), TASKS, Map.of(), 0);
        assertEveryTaskActiveExactlyOnce(result, TASKS);
        assertBalanced(result);
        assertThat(result.values()).allSatisfy(t -> assertThat(t.standby()).isEmpty());
        assertThat(result.values()).allSatisfy(t -> assertThat(t.warmup()).isEmpty());
    }

    @Test
    void aJoiningMemberTakesOnlyWhatBalanceRequiresAndTheOthersKeepTheRest() {
        List<StickyTaskAssignor.MemberSpec> two = List.of(member("a", "p1"), member("b", "p2"));
        Map<String, TasksTuple> before = StickyTaskAssignor.assign(two, TASKS, Map.of(), 0);
        List<StickyTaskAssignor.MemberSpec> three = List.of(member("a", "p1"), member("b", "p2"), member("c", "p3"));
        Map<String, TasksTuple> after = StickyTaskAssignor.assign(three, TASKS, before, 0);
        assertEveryTaskActiveExactlyOnce(after, TASKS);
        assertBalanced(after);
        for (String id : List.of("a", "b")) {
            assertThat(activeTasks(before.get(id))).containsAll(activeTasks(after.get(id)));
        }
        // 8 tasks over 3 members: c takes 2 (or 3); nothing else moves between a and b.
        int moved = 8
                - activeTasks(after.get("a")).size()
                - activeTasks(after.get("b")).size();
        assertThat(moved).isEqualTo(activeTasks(after.get("c")).size());
        assertThat(moved).isBetween(2, 3);
    }

    @Test
    void aLeavingMembersTasksAreSpreadWhileTheOthersKeepTheirs() {
        List<StickyTaskAssignor.MemberSpec> three = List.of(member("a", "p1"), member("b", "p2"), member("c", "p3"));
        Map<String, TasksTuple> before = StickyTaskAssignor.assign(three, TASKS, Map.of(), 0);
        Map<String, TasksTuple> after =
                StickyTaskAssignor.assign(List.of(member("a", "p1"), member("b", "p2")), TASKS, before, 0);
        assertEveryTaskActiveExactlyOnce(after, TASKS);
        assertBalanced(after);
        assertThat(activeTasks(after.get("a"))).containsAll(activeTasks(before.get("a")));
        assertThat(activeTasks(after.get("b"))).containsAll(activeTasks(before.get("b")));
    }

    @Test
    void theSameInputGivesTheSameAssignment() {
        List<StickyTaskAssignor.MemberSpec> members = List.of(member("b", "p2"), member("a", "p1"));
        assertThat(StickyTaskAssignor.assign(members, TASKS, Map.of(), 1))
                .isEqualTo(StickyTaskAssignor.assign(List.of(members.get(1), members.get(0)), TASKS, Map.of(), 1));
    }

    @Test
    void standbysLiveInAnotherProcessThanTheirActiveTask() {
        List<StickyTaskAssignor.MemberSpec> members =
                List.of(member("a1", "p1"), member("a2", "p1"), member("b1", "p2"), member("b2", "p2"));
        Map<String, TasksTuple> result = StickyTaskAssignor.assign(members, TASKS, Map.of(), 1);
        assertEveryTaskActiveExactlyOnce(result, TASKS);
        Map<String, String> processOf = new HashMap<>();
        members.forEach(m -> processOf.put(m.memberId(), m.processId()));
        Map<String, String> activeProcess = new HashMap<>();
        result.forEach((id, t) -> activeTasks(t).forEach(task -> activeProcess.put(task, processOf.get(id))));
        List<String> standbys = new ArrayList<>();
        result.forEach((id, t) -> standbyTasks(t).forEach(task -> {
            standbys.add(task);
            assertThat(processOf.get(id))
                    .as("standby of %s not in the process running it", task)
                    .isNotEqualTo(activeProcess.get(task));
        }));
        assertThat(standbys).as("one standby per task").hasSize(8).doesNotHaveDuplicates();
        result.values().forEach(t -> assertThat(TaskIds.count(t.standby())).isEqualTo(2));
    }

    @Test
    void standbysAreLeftOutWhenThereIsNoOtherProcess() {
        Map<String, TasksTuple> result =
                StickyTaskAssignor.assign(List.of(member("a1", "p1"), member("a2", "p1")), TASKS, Map.of(), 1);
        assertEveryTaskActiveExactlyOnce(result, TASKS);
        assertThat(result.values()).allSatisfy(t -> assertThat(t.standby()).isEmpty());
    }

    @Test
    void standbysStayWhereTheyWereWhenNothingChanged() {
        List<StickyTaskAssignor.MemberSpec> members = List.of(member("a", "p1"), member("b", "p2"), member("c", "p3"));
        Map<String, TasksTuple> before = StickyTaskAssignor.assign(members, TASKS, Map.of(), 1);
        Map<String, TasksTuple> again = StickyTaskAssignor.assign(members, TASKS, before, 1);
        assertThat(again).isEqualTo(before);
    }

    @Test
    void aTaskMovesPreferablyToTheMemberHoldingItsStandby() {
        List<StickyTaskAssignor.MemberSpec> members = List.of(member("a", "p1"), member("b", "p2"), member("c", "p3"));
        Map<String, TasksTuple> before = StickyTaskAssignor.assign(members, Map.of("0", 6), Map.of(), 1);
        // a dies: each of its active tasks should go to whoever held its standby, if balance allows.
        Map<String, TasksTuple> after =
                StickyTaskAssignor.assign(List.of(member("b", "p2"), member("c", "p3")), Map.of("0", 6), before, 1);
        assertEveryTaskActiveExactlyOnce(after, Map.of("0", 6));
        for (String task : activeTasks(before.get("a"))) {
            String standbyHolder = standbyTasks(before.get("b")).contains(task) ? "b" : "c";
            assertThat(activeTasks(after.get(standbyHolder)))
                    .as("task %s", task)
                    .contains(task);
        }
    }
}
