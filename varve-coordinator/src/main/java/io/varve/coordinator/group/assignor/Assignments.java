package io.varve.coordinator.group.assignor;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;

/** Operations on assignments (topic id to partitions); topics with no partitions are never kept. */
public final class Assignments {
    private Assignments() {}

    public static Map<Uuid, Set<Integer>> copy(Map<Uuid, Set<Integer>> a) {
        Map<Uuid, Set<Integer>> c = new TreeMap<>();
        a.forEach((t, ps) -> {
            if (!ps.isEmpty()) {
                c.put(t, new TreeSet<>(ps));
            }
        });
        return c;
    }

    public static boolean isSubset(Map<Uuid, Set<Integer>> a, Map<Uuid, Set<Integer>> b) {
        for (Map.Entry<Uuid, Set<Integer>> e : a.entrySet()) {
            if (!e.getValue().isEmpty() && !b.getOrDefault(e.getKey(), Set.of()).containsAll(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    public static boolean intersects(Map<Uuid, Set<Integer>> a, Map<Uuid, Set<Integer>> b) {
        for (Map.Entry<Uuid, Set<Integer>> e : a.entrySet()) {
            Set<Integer> other = b.getOrDefault(e.getKey(), Set.of());
            for (int p : e.getValue()) {
                if (other.contains(p)) {
                    return true;
                }
            }
        }
        return false;
    }

    public static boolean sameAs(Map<Uuid, Set<Integer>> a, Map<Uuid, Set<Integer>> b) {
        return copy(a).equals(copy(b));
    }

    public static int count(Map<Uuid, Set<Integer>> a) {
        return a.values().stream().mapToInt(Set::size).sum();
    }

    public static void add(Map<Uuid, Set<Integer>> a, Uuid topic, int partition) {
        a.computeIfAbsent(topic, t -> new TreeSet<>()).add(partition);
    }

    public static void remove(Map<Uuid, Set<Integer>> a, Uuid topic, int partition) {
        Set<Integer> ps = a.get(topic);
        if (ps != null) {
            ps.remove(partition);
            if (ps.isEmpty()) {
                a.remove(topic);
            }
        }
    }

    public static Set<Uuid> topics(Map<Uuid, Set<Integer>> a) {
        return new HashSet<>(a.keySet());
    }

    public static Map<Uuid, Set<Integer>> mutable() {
        return new HashMap<>();
    }
}
