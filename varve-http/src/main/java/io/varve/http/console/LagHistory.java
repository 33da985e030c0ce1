package io.varve.http.console;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The summed lag of each group, sampled at a fixed period and kept for an hour (a bounded ring per group), for the
 * console's lag chart. Thread-safe; samples are added by one sampler thread.
 */
final class LagHistory {
    static final int MAX_SAMPLES = 240;
    static final int MAX_GROUPS = 1000;

    record Sample(long timeMs, long lag) {}

    private final Map<String, Deque<Sample>> byGroup = new TreeMap<>();
    /** Samples closer than this to a group's last one are not kept (pages sample too, when they are viewed). */
    private final long minGapMs;

    LagHistory(long minGapMs) {
        this.minGapMs = minGapMs;
    }

    synchronized void add(long timeMs, Map<String, Long> lagByGroup) {
        byGroup.keySet().removeIf(g -> !lagByGroup.containsKey(g));
        lagByGroup.forEach((group, lag) -> {
            if (!byGroup.containsKey(group) && byGroup.size() >= MAX_GROUPS) {
                return;
            }
            Deque<Sample> ring = byGroup.computeIfAbsent(group, g -> new ArrayDeque<>());
            if (!ring.isEmpty() && timeMs - ring.peekLast().timeMs() < minGapMs) {
                return;
            }
            if (ring.size() == MAX_SAMPLES) {
                ring.removeFirst();
            }
            ring.addLast(new Sample(timeMs, lag));
        });
    }

    synchronized List<Sample> samples(String group) {
        Deque<Sample> ring = byGroup.get(group);
        return ring == null ? List.of() : new ArrayList<>(ring);
    }
}
