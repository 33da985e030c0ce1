package io.varve.coordinator.group.streams;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Sets of tasks as subtopology id to partitions: the shape of every task list in the protocol. */
public final class TaskIds {
    private TaskIds() {}

    public static Map<String, Set<Integer>> mutable() {
        return new HashMap<>();
    }

    public static Map<String, Set<Integer>> copy(Map<String, Set<Integer>> tasks) {
        Map<String, Set<Integer>> out = new HashMap<>();
        tasks.forEach((s, ps) -> {
            if (!ps.isEmpty()) {
                out.put(s, new TreeSet<>(ps));
            }
        });
        return out;
    }

    /** An unmodifiable copy, empty partition sets dropped. */
    public static Map<String, Set<Integer>> immutable(Map<String, Set<Integer>> tasks) {
        Map<String, Set<Integer>> out = new HashMap<>();
        tasks.forEach((s, ps) -> {
            if (!ps.isEmpty()) {
                out.put(s, java.util.Collections.unmodifiableSet(new TreeSet<>(ps)));
            }
        });
        return Map.copyOf(out);
    }

    public static void add(Map<String, Set<Integer>> tasks, String subtopology, int partition) {
        tasks.computeIfAbsent(subtopology, s -> new TreeSet<>()).add(partition);
    }

    public static boolean contains(Map<String, Set<Integer>> tasks, String subtopology, int partition) {
        Set<Integer> ps = tasks.get(subtopology);
        return ps != null && ps.contains(partition);
    }

    public static int count(Map<String, Set<Integer>> tasks) {
        int n = 0;
        for (Set<Integer> ps : tasks.values()) {
            n += ps.size();
        }
        return n;
    }

    /** Equal as sets of tasks (an empty partition set counts as absent). */
    public static boolean sameAs(Map<String, Set<Integer>> a, Map<String, Set<Integer>> b) {
        return copy(a).equals(copy(b));
    }

    public static boolean intersects(Map<String, Set<Integer>> a, Map<String, Set<Integer>> b) {
        for (Map.Entry<String, Set<Integer>> e : a.entrySet()) {
            Set<Integer> other = b.get(e.getKey());
            if (other != null) {
                for (int p : e.getValue()) {
                    if (other.contains(p)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    public static boolean isSubset(Map<String, Set<Integer>> sub, Map<String, Set<Integer>> of) {
        for (Map.Entry<String, Set<Integer>> e : sub.entrySet()) {
            for (int p : e.getValue()) {
                if (!contains(of, e.getKey(), p)) {
                    return false;
                }
            }
        }
        return true;
    }
}
