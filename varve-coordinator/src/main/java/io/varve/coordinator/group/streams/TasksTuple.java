package io.varve.coordinator.group.streams;

import io.varve.coordinator.group.record.StreamsGroupValue;
import java.util.Map;
import java.util.Set;

/** A member's active, standby and warm-up tasks. Immutable: every change builds a new tuple. */
public record TasksTuple(
        Map<String, Set<Integer>> active, Map<String, Set<Integer>> standby, Map<String, Set<Integer>> warmup) {
    public static final TasksTuple EMPTY = new TasksTuple(Map.of(), Map.of(), Map.of());

    public TasksTuple {
        active = TaskIds.immutable(active);
        standby = TaskIds.immutable(standby);
        warmup = TaskIds.immutable(warmup);
    }

    public boolean isEmpty() {
        return active.isEmpty() && standby.isEmpty() && warmup.isEmpty();
    }

    public int taskCount() {
        return TaskIds.count(active) + TaskIds.count(standby) + TaskIds.count(warmup);
    }

    StreamsGroupValue.Tasks toValue() {
        return new StreamsGroupValue.Tasks(active, standby, warmup);
    }

    static TasksTuple fromValue(StreamsGroupValue.Tasks v) {
        return new TasksTuple(v.active(), v.standby(), v.warmup());
    }
}
