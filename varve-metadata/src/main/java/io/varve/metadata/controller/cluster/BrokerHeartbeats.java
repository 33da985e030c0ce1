package io.varve.metadata.controller.cluster;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * When the active controller last heard from each broker, and how far each had read the metadata
 * log. Soft state: a new active controller starts empty. Time is always passed in (milliseconds of
 * a monotonic clock); this class never reads a clock. Not thread-safe: used on the controller's
 * event thread.
 *
 * <p>A broker the controller never heard from (known only from the image after a failover) gets a
 * session that starts when the controller first looks at it, so a new controller does not fence the
 * whole cluster at once; such an assumed session does not count as a live incarnation for
 * duplicate-registration checks, so a broker restarted together with its single-node controller
 * registers at once instead of waiting out the previous incarnation's session.
 */
public final class BrokerHeartbeats {

    private final long sessionTimeoutMs;
    private final Map<Integer, Session> sessions = new HashMap<>();

    private static final class Session {
        long lastContactMs;
        boolean heardFrom;
        long metadataOffset = -1;
        /** The broker is caught up once its metadata offset reaches this. */
        long catchUpOffset;
        /**
         * When its controller connection closed without a controlled shutdown, the session ends at this time unless a
         * heartbeat comes first; {@link Long#MAX_VALUE} while no connection loss is pending.
         */
        long connectionLostDeadlineMs = Long.MAX_VALUE;

        boolean isOver(long nowMs, long sessionTimeoutMs) {
            return nowMs - lastContactMs > sessionTimeoutMs || nowMs > connectionLostDeadlineMs;
        }
    }

    public BrokerHeartbeats(long sessionTimeoutMs) {
        if (sessionTimeoutMs <= 0) {
            throw new IllegalArgumentException("broker.session.timeout.ms must be > 0: " + sessionTimeoutMs);
        }
        this.sessionTimeoutMs = sessionTimeoutMs;
    }

    public long sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    /** A new incarnation registered; it is caught up once it has read up to {@code catchUpOffset}. */
    void registered(int brokerId, long catchUpOffset, long nowMs) {
        Session session = new Session();
        session.lastContactMs = nowMs;
        session.heardFrom = true;
        session.catchUpOffset = catchUpOffset;
        sessions.put(brokerId, session);
    }

    /** A heartbeat arrived from the registered incarnation. */
    void heartbeat(int brokerId, long metadataOffset, long nowMs) {
        Session session = sessions.computeIfAbsent(brokerId, id -> new Session());
        session.lastContactMs = Math.max(session.lastContactMs, nowMs);
        session.heardFrom = true;
        session.metadataOffset = Math.max(session.metadataOffset, metadataOffset);
        session.connectionLostDeadlineMs = Long.MAX_VALUE;
    }

    /**
     * The connection the broker heartbeats on closed (a crashed process's sockets are closed by its kernel at once).
     * A live broker reconnects and heartbeats within its heartbeat interval; one that does not within {@code graceMs}
     * is expired then, long before its session timeout would have passed. Returns false when nothing changed (no
     * session is known, or it ends sooner anyway).
     */
    public boolean connectionLost(int brokerId, long nowMs, long graceMs) {
        Session session = sessions.get(brokerId);
        if (session == null || !session.heardFrom) {
            return false;
        }
        long deadline = nowMs + graceMs;
        if (deadline >= session.lastContactMs + sessionTimeoutMs || deadline >= session.connectionLostDeadlineMs) {
            return false;
        }
        session.connectionLostDeadlineMs = deadline;
        return true;
    }

    /** True if the broker has read the metadata log far enough to be unfenced. */
    boolean isCaughtUp(int brokerId) {
        Session session = sessions.get(brokerId);
        return session != null && session.heardFrom && session.metadataOffset >= session.catchUpOffset;
    }

    /** True if this controller heard from the broker within the session timeout. */
    boolean hasLiveSession(int brokerId, long nowMs) {
        Session session = sessions.get(brokerId);
        return session != null && session.heardFrom && !session.isOver(nowMs, sessionTimeoutMs);
    }

    /**
     * The brokers among {@code unfenced} whose session ran out, ascending. Brokers seen here for the
     * first time start an assumed session now.
     */
    List<Integer> expired(Collection<Integer> unfenced, long nowMs) {
        List<Integer> expired = new ArrayList<>();
        for (int brokerId : unfenced) {
            Session session = sessions.computeIfAbsent(brokerId, id -> {
                Session assumed = new Session();
                assumed.lastContactMs = nowMs;
                return assumed;
            });
            if (session.isOver(nowMs, sessionTimeoutMs)) {
                expired.add(brokerId);
            }
        }
        expired.sort(Integer::compare);
        return expired;
    }

    /** Forgets every session (a controller that stopped leading). */
    public void forgetAll() {
        sessions.clear();
    }

    /** Forgets an unregistered broker. */
    void remove(int brokerId) {
        sessions.remove(brokerId);
    }

    /** The highest metadata offset the broker reported, or -1. */
    public long metadataOffset(int brokerId) {
        Session session = sessions.get(brokerId);
        return session == null ? -1 : session.metadataOffset;
    }
}
