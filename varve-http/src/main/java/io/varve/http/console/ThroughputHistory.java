package io.varve.http.console;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bytes in and out per second of each topic and of the whole broker, computed between consecutive samples of the
 * per-topic byte counters and kept for an hour (a bounded ring per topic), for the console's throughput charts.
 * Thread-safe; samples come from one sampler thread.
 */
final class ThroughputHistory {
    /** The series of the whole broker (a topic name cannot contain a space). */
    static final String BROKER = "all topics";

    static final int MAX_SAMPLES = 240;
    static final int MAX_TOPICS = 1000;

    record Sample(long timeMs, double bytesInPerSecond, double bytesOutPerSecond) {}

    private final Map<String, Deque<Sample>> byTopic = new TreeMap<>();
    /** Samples closer than this to the previous one are not taken (pages sample too, when they are viewed). */
    private final long minGapMs;

    private Map<String, long[]> lastTotals = Map.of();
    private long lastTimeMs = -1;

    ThroughputHistory(long minGapMs) {
        this.minGapMs = minGapMs;
    }

    /** Adds the rates since the previous sample; the first sample only records the totals. */
    synchronized void add(long timeMs, Map<String, long[]> totals) {
        if (lastTimeMs >= 0 && timeMs - lastTimeMs < minGapMs) {
            return;
        }
        if (lastTimeMs >= 0 && timeMs > lastTimeMs) {
            double seconds = (timeMs - lastTimeMs) / 1000.0;
            Map<String, double[]> rates = new HashMap<>();
            double[] broker = new double[2];
            totals.forEach((topic, now) -> {
                long[] before = lastTotals.getOrDefault(topic, new long[2]);
                double in = Math.max(0, now[0] - before[0]) / seconds;
                double out = Math.max(0, now[1] - before[1]) / seconds;
                rates.put(topic, new double[] {in, out});
                broker[0] += in;
                broker[1] += out;
            });
            rates.put(BROKER, broker);
            byTopic.keySet().removeIf(t -> !rates.containsKey(t));
            rates.forEach((topic, rate) -> {
                if (!byTopic.containsKey(topic) && byTopic.size() >= MAX_TOPICS) {
                    return;
                }
                Deque<Sample> ring = byTopic.computeIfAbsent(topic, t -> new ArrayDeque<>());
                if (ring.size() == MAX_SAMPLES) {
                    ring.removeFirst();
                }
                ring.addLast(new Sample(timeMs, rate[0], rate[1]));
            });
        }
        lastTotals = Map.copyOf(totals);
        lastTimeMs = timeMs;
    }

    synchronized List<String> series() {
        return new ArrayList<>(byTopic.keySet());
    }

    synchronized List<Sample> samples(String topic) {
        Deque<Sample> ring = byTopic.get(topic);
        return ring == null ? List.of() : new ArrayList<>(ring);
    }
}
