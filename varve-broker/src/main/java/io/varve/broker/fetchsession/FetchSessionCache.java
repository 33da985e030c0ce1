package io.varve.broker.fetchsession;

import io.varve.broker.fetchsession.SessionPartition.Key;
import io.varve.broker.fetchsession.SessionPartition.PartitionFetch;
import io.varve.http.metrics.FetchSessionStats;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's incremental fetch sessions (KIP-227), at most {@code max.incremental.fetch.session.cache.slots} of them
 * (0 turns sessions off: every fetch is answered in full with session id 0).
 *
 * <p>A request's session id and epoch decide what it is:
 *
 * <table>
 *   <tr><th>session id</th><th>epoch</th><th>meaning</th></tr>
 *   <tr><td>0</td><td>-1</td><td>sessionless: read and answer what it names</td></tr>
 *   <tr><td>0</td><td>0</td><td>full: open a session with what it names, if it names something and a slot is free
 *       or can be taken</td></tr>
 *   <tr><td>n</td><td>-1</td><td>close session n, then as sessionless</td></tr>
 *   <tr><td>n</td><td>0</td><td>close session n, then full</td></tr>
 *   <tr><td>n</td><td>e &gt; 0</td><td>incremental: session n must exist (else FETCH_SESSION_ID_NOT_FOUND) and expect
 *       e (else INVALID_FETCH_SESSION_EPOCH) and name partitions the same way (topic ids from v13, else
 *       FETCH_SESSION_TOPIC_ID_ERROR); the named partitions are added or updated, the forgotten ones dropped; a
 *       session left empty is closed</td></tr>
 * </table>
 *
 * <p>Eviction when every slot is taken, as Kafka's: the least recently used session goes if it was not used for the
 * minimum age ({@code EVICTION_MIN_AGE_MS}); otherwise a new session may take the slot of the least valuable session
 * that is older than the minimum age (and, for a follower's session, of any consumer's session whatever its age),
 * value being privileged (a follower's) first and more partitions second, and only if the new session is strictly
 * more valuable.
 */
public final class FetchSessionCache implements FetchSessionStats {
    private static final Logger log = LoggerFactory.getLogger(FetchSessionCache.class);
    public static final int DEFAULT_SLOTS = 1000;
    /** Kafka's minimum age before a session can be evicted by a less recent or less valuable one. */
    public static final long EVICTION_MIN_AGE_MS = 120_000;

    public static final int FINAL_EPOCH = -1;
    public static final int INITIAL_EPOCH = 0;

    /** Less valuable first: unprivileged before privileged, then fewer partitions, then lower id. */
    private static final Comparator<FetchSession> BY_VALUE = Comparator.comparing(FetchSession::privileged)
            .thenComparingInt(FetchSession::size)
            .thenComparingInt(FetchSession::id);

    private final int slots;
    private final long minAgeMs;
    private final LongSupplier clockMs;
    private final IntSupplier randomInts;
    /** Guarded by this object's monitor. */
    private final Map<Integer, FetchSession> sessions = new HashMap<>();

    private long evictions;

    /**
     * @param slots      {@code max.incremental.fetch.session.cache.slots}
     * @param randomInts where session ids come from (any int; non-positive and taken ones are skipped)
     */
    public FetchSessionCache(int slots, long minAgeMs, LongSupplier clockMs, IntSupplier randomInts) {
        if (slots < 0 || minAgeMs < 0) {
            throw new IllegalArgumentException("slots and minAgeMs must not be negative");
        }
        this.slots = slots;
        this.minAgeMs = minAgeMs;
        this.clockMs = clockMs;
        this.randomInts = randomInts;
    }

    /**
     * Interprets one request (see the class comment).
     *
     * @param usesTopicIds true from Fetch v13 (partitions named by topic id)
     * @param fromFollower a follower's fetch: its session is privileged
     * @param named        the partitions the request names, in its order
     * @param forgotten    the partitions it forgets (incremental requests only)
     */
    public synchronized FetchContext newContext(
            int sessionId,
            int epoch,
            boolean usesTopicIds,
            boolean fromFollower,
            List<PartitionFetch> named,
            List<Key> forgotten) {
        long nowMs = clockMs.getAsLong();
        if (epoch == INITIAL_EPOCH || epoch == FINAL_EPOCH) {
            if (sessionId != FetchContext.NO_SESSION) {
                sessions.remove(sessionId); // a full request closes the session it names
            }
            if (epoch == FINAL_EPOCH) {
                return FetchContext.sessionless(named);
            }
            FetchSession created = named.isEmpty() ? null : create(fromFollower, usesTopicIds, named, nowMs);
            return created == null ? FetchContext.sessionless(named) : FetchContext.full(created, named);
        }
        FetchSession session = sessions.get(sessionId);
        if (session == null) {
            return FetchContext.error(Errors.FETCH_SESSION_ID_NOT_FOUND);
        }
        if (session.nextEpoch() != epoch) {
            return FetchContext.error(Errors.INVALID_FETCH_SESSION_EPOCH);
        }
        if (session.usesTopicIds() != usesTopicIds) {
            return FetchContext.error(Errors.FETCH_SESSION_TOPIC_ID_ERROR);
        }
        session.update(named, forgotten);
        if (session.size() == 0) {
            sessions.remove(sessionId);
            return FetchContext.sessionless(named);
        }
        session.used(nowMs);
        return FetchContext.incremental(session);
    }

    private FetchSession create(boolean privileged, boolean usesTopicIds, List<PartitionFetch> named, long nowMs) {
        if (slots == 0) {
            return null;
        }
        if (sessions.size() >= slots && !evictFor(privileged, named.size(), nowMs)) {
            return null;
        }
        int id;
        do {
            id = randomInts.getAsInt();
        } while (id <= 0 || sessions.containsKey(id));
        FetchSession session = new FetchSession(id, privileged, usesTopicIds, nowMs, named);
        sessions.put(id, session);
        return session;
    }

    /** Frees a slot for a new session of {@code size} partitions if the rules allow; true when one was freed. */
    private boolean evictFor(boolean privileged, int size, long nowMs) {
        FetchSession leastRecent = null;
        FetchSession leastValuable = null;
        for (FetchSession s : sessions.values()) {
            if (leastRecent == null
                    || s.lastUsedMs() < leastRecent.lastUsedMs()
                    || (s.lastUsedMs() == leastRecent.lastUsedMs() && s.id() < leastRecent.id())) {
                leastRecent = s;
            }
            boolean old = nowMs - s.creationMs() > minAgeMs;
            boolean evictable = old || (privileged && !s.privileged());
            if (evictable && (leastValuable == null || BY_VALUE.compare(s, leastValuable) < 0)) {
                leastValuable = s;
            }
        }
        FetchSession victim = null;
        if (leastRecent != null && nowMs - leastRecent.lastUsedMs() > minAgeMs) {
            victim = leastRecent;
        } else if (leastValuable != null && moreValuable(privileged, size, leastValuable)) {
            victim = leastValuable;
        }
        if (victim == null) {
            return false;
        }
        sessions.remove(victim.id());
        evictions++;
        log.debug("Evicted fetch session {} ({} partitions) for a new one of {}", victim.id(), victim.size(), size);
        return true;
    }

    private static boolean moreValuable(boolean privileged, int size, FetchSession than) {
        if (privileged != than.privileged()) {
            return privileged;
        }
        return size > than.size();
    }

    /** Sessions open now (Kafka's NumIncrementalFetchSessions). */
    @Override
    public synchronized int sessionCount() {
        return sessions.size();
    }

    /** Partitions held by all sessions (Kafka's NumIncrementalFetchPartitionsCached). */
    @Override
    public synchronized long partitionsCached() {
        long n = 0;
        for (FetchSession s : sessions.values()) {
            n += s.size();
        }
        return n;
    }

    /** Sessions evicted so far (Kafka's IncrementalFetchSessionEvictionsPerSec counts these). */
    @Override
    public synchronized long evictions() {
        return evictions;
    }

    /** The session with this id, for tests and metrics; null when none. */
    synchronized FetchSession session(int id) {
        return sessions.get(id);
    }
}
