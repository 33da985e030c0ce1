package io.varve.raft.core;

import io.varve.raft.core.message.RaftRequest;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Requests this replica sent and still waits for, by correlation id. A response is handled only if it
 * answers a pending request of the current role from the node it was sent to: late, duplicated and
 * stale answers are dropped here, once. Cleared on every role change; an entry expires after the
 * request timeout.
 */
final class PendingRequests {
    private final int capacity;
    private final Map<Long, Pending> pending = new HashMap<>();
    private long nextCorrelationId;

    /**
     * Correlation ids start at a random point: a replica that restarts must not mistake an answer to a
     * request its previous life sent for one to its own (the network may still carry those).
     */
    PendingRequests(int capacity, long firstCorrelationId) {
        this.capacity = capacity;
        this.nextCorrelationId = firstCorrelationId;
    }

    long register(int destinationId, Class<? extends RaftRequest> kind, long nowMs) {
        if (pending.size() >= capacity) {
            throw new IllegalStateException("more than " + capacity + " requests in flight");
        }
        long id = nextCorrelationId++;
        pending.put(id, new Pending(destinationId, kind, nowMs));
        return id;
    }

    /** Removes and returns whether {@code correlationId} was a pending request of {@code kind} to {@code sourceId}. */
    boolean complete(long correlationId, int sourceId, Class<? extends RaftRequest> kind) {
        Pending entry = pending.get(correlationId);
        if (entry == null || entry.destinationId != sourceId || entry.kind != kind) {
            return false;
        }
        pending.remove(correlationId);
        return true;
    }

    boolean hasPending(int destinationId, Class<? extends RaftRequest> kind) {
        for (Pending entry : pending.values()) {
            if (entry.destinationId == destinationId && entry.kind == kind) {
                return true;
            }
        }
        return false;
    }

    void expire(long nowMs, long timeoutMs) {
        Iterator<Pending> it = pending.values().iterator();
        while (it.hasNext()) {
            if (nowMs - it.next().sentMs >= timeoutMs) {
                it.remove();
            }
        }
    }

    void clear() {
        pending.clear();
    }

    private record Pending(int destinationId, Class<? extends RaftRequest> kind, long sentMs) {}
}
