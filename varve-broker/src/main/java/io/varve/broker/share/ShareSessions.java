package io.varve.broker.share;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;

/**
 * The share sessions of this broker, one per (group, member): the partitions the member fetches here and the epoch
 * its next request must carry. Epoch 0 opens (or replaces) a session, -1 closes it, any other must be the session's
 * next epoch (INVALID_SHARE_SESSION_EPOCH), and a session must exist for it (SHARE_SESSION_NOT_FOUND). At most
 * {@code maxSessions} ({@code group.share.max.share.sessions}); when full, a session idle for longer than {@code
 * idleEvictionMs} makes room, else the new one gets SHARE_SESSION_LIMIT_REACHED. Thread-safe.
 */
public final class ShareSessions {
    public static final int OPEN_EPOCH = 0;
    public static final int CLOSE_EPOCH = -1;

    /** One member's session. */
    public static final class Session {
        final String groupId;
        final String memberId;
        int nextEpoch = 1;
        long lastUsedMs;
        final Set<SharePartitionKey> partitions = new LinkedHashSet<>();

        Session(String groupId, String memberId) {
            this.groupId = groupId;
            this.memberId = memberId;
        }

        public synchronized List<SharePartitionKey> partitions() {
            return List.copyOf(partitions);
        }
    }

    /** The outcome of a request's epoch: an error, or the session (null when the request closed it). */
    public record Step(Errors error, Session session, List<SharePartitionKey> closedPartitions) {}

    private record Id(String groupId, String memberId) {}

    private final int maxSessions;
    private final long idleEvictionMs;
    private final LongSupplier clock;
    private final Map<Id, Session> sessions = new LinkedHashMap<>();

    public ShareSessions(int maxSessions, long idleEvictionMs, LongSupplier clock) {
        this.maxSessions = maxSessions;
        this.idleEvictionMs = idleEvictionMs;
        this.clock = clock;
    }

    /**
     * Applies a request's epoch. {@code added} are the partitions the request names (all of them when it opens the
     * session), {@code forgotten} those it removes.
     */
    public synchronized Step step(
            String groupId,
            String memberId,
            int epoch,
            List<SharePartitionKey> added,
            List<SharePartitionKey> forgotten) {
        long now = clock.getAsLong();
        Id id = new Id(groupId, memberId);
        Session s = sessions.get(id);
        if (epoch == OPEN_EPOCH) {
            if (s == null && sessions.size() >= maxSessions && !evictIdle(now)) {
                return new Step(Errors.SHARE_SESSION_LIMIT_REACHED, null, List.of());
            }
            s = new Session(groupId, memberId);
            sessions.put(id, s);
        } else if (s == null) {
            return new Step(Errors.SHARE_SESSION_NOT_FOUND, null, List.of());
        } else if (epoch == CLOSE_EPOCH) {
            sessions.remove(id);
            return new Step(Errors.NONE, null, s.partitions());
        } else if (epoch != s.nextEpoch) {
            return new Step(Errors.INVALID_SHARE_SESSION_EPOCH, null, List.of());
        } else {
            s.nextEpoch = s.nextEpoch == Integer.MAX_VALUE ? 1 : s.nextEpoch + 1;
        }
        s.lastUsedMs = now;
        synchronized (s) {
            s.partitions.addAll(added);
            forgotten.forEach(s.partitions::remove);
        }
        return new Step(Errors.NONE, s, List.of());
    }

    /** Whether (group, member) has a session here (ShareAcknowledge needs one). */
    public synchronized boolean has(String groupId, String memberId) {
        return sessions.containsKey(new Id(groupId, memberId));
    }

    public synchronized int size() {
        return sessions.size();
    }

    private boolean evictIdle(long now) {
        for (Map.Entry<Id, Session> e : sessions.entrySet()) {
            if (now - e.getValue().lastUsedMs > idleEvictionMs) {
                sessions.remove(e.getKey());
                return true;
            }
        }
        return false;
    }
}
