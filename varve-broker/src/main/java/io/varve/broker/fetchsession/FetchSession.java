package io.varve.broker.fetchsession;

import io.varve.broker.fetchsession.SessionPartition.Answer;
import io.varve.broker.fetchsession.SessionPartition.Key;
import io.varve.broker.fetchsession.SessionPartition.PartitionFetch;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;

/**
 * One client's incremental fetch session: its partitions in the order they are read, the epoch its next request
 * must carry, and what the cache's eviction rules look at (privileged when a follower opened it, its size, its
 * creation and last use). The cache changes the epoch and times under its own monitor; the partitions change under
 * this session's.
 */
public final class FetchSession {
    private final int id;
    private final boolean privileged;
    private final boolean usesTopicIds;
    private final long creationMs;
    /** Guarded by the cache. */
    private long lastUsedMs;
    /** Guarded by the cache: the epoch the next incremental request must carry. */
    private int nextEpoch = 1;
    /** Guarded by this object's monitor. Read in this order; a partition that returns records moves to the end. */
    private final LinkedHashMap<Key, SessionPartition> partitions = new LinkedHashMap<>();

    FetchSession(int id, boolean privileged, boolean usesTopicIds, long nowMs, Collection<PartitionFetch> fetches) {
        this.id = id;
        this.privileged = privileged;
        this.usesTopicIds = usesTopicIds;
        this.creationMs = nowMs;
        this.lastUsedMs = nowMs;
        for (PartitionFetch f : fetches) {
            partitions.put(f.key(), new SessionPartition(f));
        }
    }

    public int id() {
        return id;
    }

    public boolean privileged() {
        return privileged;
    }

    boolean usesTopicIds() {
        return usesTopicIds;
    }

    long creationMs() {
        return creationMs;
    }

    long lastUsedMs() {
        return lastUsedMs;
    }

    int nextEpoch() {
        return nextEpoch;
    }

    void used(long nowMs) {
        lastUsedMs = nowMs;
        nextEpoch = epochAfter(nextEpoch);
    }

    /** The epoch after {@code epoch}: epochs of a session run 1, 2, … and wrap to 1 (0 and -1 mean full fetches). */
    static int epochAfter(int epoch) {
        return epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
    }

    public synchronized int size() {
        return partitions.size();
    }

    /** Adds or updates the partitions an incremental request names and drops the ones it forgets. */
    synchronized void update(List<PartitionFetch> named, List<Key> forgotten) {
        for (Key key : forgotten) {
            partitions.remove(key);
        }
        for (PartitionFetch f : named) {
            SessionPartition p = partitions.get(f.key());
            if (p == null) {
                partitions.put(f.key(), new SessionPartition(f));
            } else {
                p.update(f);
            }
        }
    }

    /** Every partition's fetch position, in reading order: what an incremental fetch reads. */
    synchronized List<PartitionFetch> fetches() {
        List<PartitionFetch> out = new ArrayList<>(partitions.size());
        for (SessionPartition p : partitions.values()) {
            out.add(p.fetch());
        }
        return out;
    }

    /**
     * Records a response. Partitions that returned records move to the end of the reading order, so that under
     * max.bytes the others get their turn next time.
     *
     * @param incremental false for the response that created the session, which carries every partition
     * @return per answer, whether the response carries it
     */
    synchronized boolean[] answered(List<Answer> answers, boolean incremental) {
        boolean[] send = new boolean[answers.size()];
        List<SessionPartition> moved = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            Answer a = answers.get(i);
            SessionPartition p = partitions.get(a.key());
            if (p == null) {
                send[i] = !incremental || a.isError(); // forgotten while the fetch waited
                continue;
            }
            boolean changed = p.answered(a);
            send[i] = !incremental || changed;
            if (a.recordsBytes() > 0) {
                moved.add(p);
            }
        }
        for (SessionPartition p : moved) {
            partitions.remove(p.key());
            partitions.put(p.key(), p);
        }
        return send;
    }
}
