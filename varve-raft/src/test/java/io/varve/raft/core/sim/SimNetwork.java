package io.varve.raft.core.sim;

import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.OutboundMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

/**
 * A seeded packet simulator: every message is lost, delayed (so reordered), or duplicated by the
 * schedule's random source; links can be cut one way or both; each path holds a bounded number of
 * messages in flight (beyond that they are dropped, as a full socket buffer would).
 */
final class SimNetwork {
    static final int MAX_IN_FLIGHT_PER_PATH = 64;

    private final Random random;
    private final int nodes;
    private final boolean[][] cut;
    private final int[][] inFlight;
    private final PriorityQueue<Delivery> queue = new PriorityQueue<>();
    private long sequence;
    double lossRate;
    double duplicateRate;
    int maxDelayMs;

    SimNetwork(Random random, int nodes) {
        this.random = random;
        this.nodes = nodes;
        this.cut = new boolean[nodes][nodes];
        this.inFlight = new int[nodes][nodes];
    }

    void send(int from, OutboundMessage message, long nowMs) {
        int to = message.destinationId();
        if (cut[from][to] || random.nextDouble() < lossRate) {
            return;
        }
        enqueue(from, message, nowMs);
        if (random.nextDouble() < duplicateRate) {
            enqueue(from, message, nowMs);
        }
    }

    private void enqueue(int from, OutboundMessage message, long nowMs) {
        int to = message.destinationId();
        if (inFlight[from][to] >= MAX_IN_FLIGHT_PER_PATH) {
            return;
        }
        inFlight[from][to]++;
        long deliverAtMs = nowMs + 1 + random.nextInt(Math.max(1, maxDelayMs));
        queue.add(new Delivery(
                deliverAtMs, sequence++, to, new InboundMessage(from, message.correlationId(), message.message())));
    }

    /** Messages due by {@code nowMs}, in delivery order; those on a link cut meanwhile are dropped. */
    List<Delivery> due(long nowMs) {
        List<Delivery> out = new ArrayList<>();
        while (!queue.isEmpty() && queue.peek().atMs <= nowMs) {
            Delivery delivery = queue.poll();
            int from = delivery.message.sourceId();
            inFlight[from][delivery.to]--;
            if (!cut[from][delivery.to]) {
                out.add(delivery);
            }
        }
        return out;
    }

    void cut(int from, int to) {
        if (from != to) {
            cut[from][to] = true;
        }
    }

    /** Cuts both ways between {@code group} and everyone else. */
    void isolate(List<Integer> group) {
        for (int a : group) {
            for (int b = 0; b < nodes; b++) {
                if (!group.contains(b)) {
                    cut(a, b);
                    cut(b, a);
                }
            }
        }
    }

    void healAll() {
        for (boolean[] row : cut) {
            java.util.Arrays.fill(row, false);
        }
    }

    boolean isCut(int from, int to) {
        return cut[from][to];
    }

    record Delivery(long atMs, long sequence, int to, InboundMessage message) implements Comparable<Delivery> {
        @Override
        public int compareTo(Delivery other) {
            int byTime = Long.compare(atMs, other.atMs);
            return byTime != 0 ? byTime : Long.compare(sequence, other.sequence);
        }
    }
}
