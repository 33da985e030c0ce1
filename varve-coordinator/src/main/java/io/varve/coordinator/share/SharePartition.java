package io.varve.coordinator.share;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One share group's view of one partition. Offsets below the <em>start offset</em> (SPSO) are done; from the start
 * offset to the <em>end offset</em> (SPEO, exclusive) records are in flight, each in a {@link RecordState} with a
 * delivery count; from the end offset on nothing has been handed out yet. A fetch acquires AVAILABLE in-flight
 * records first, then new ones past the end offset, each under an acquisition lock of {@code lockDurationMs}; at most
 * {@code maxInFlightRecords} records may be in flight ({@code group.share.partition.max.record.locks}). A lock that
 * expires, or a release, makes the record AVAILABLE again, unless it reached {@code deliveryCountLimit} deliveries:
 * then it is ARCHIVED. The start offset moves past every leading record that is ACKNOWLEDGED or ARCHIVED.
 *
 * <p>Pure and single-threaded: callers pass the time and hold the lock. Invariants (checked by {@link
 * #checkInvariants()}): start ≤ end; every in-flight offset is within [start, end); the record at start, if in flight,
 * is not final; a record is acquired by exactly one member or none; 1 ≤ delivery count ≤ limit once delivered
 * (offsets a compaction left empty are ARCHIVED at count 0).
 */
public final class SharePartition {
    /** An acquired range handed to a member: offsets {@code first..last} inclusive, at one delivery count. */
    public record AcquiredRange(long firstOffset, long lastOffset, int deliveryCount) {}

    /** What is persisted: the start offset and every in-flight record not simply AVAILABLE at count 0. */
    public record Snapshot(long startOffset, List<StateBatch> batches) {}

    /** A run of offsets in one state at one delivery count (ACQUIRED records are persisted as AVAILABLE). */
    public record StateBatch(long firstOffset, long lastOffset, RecordState state, int deliveryCount) {}

    private static final class InFlight {
        RecordState state = RecordState.AVAILABLE;
        int deliveryCount;
        String memberId;
        long lockDeadlineMs;
    }

    private final int deliveryCountLimit;
    private final int maxInFlightRecords;
    private long startOffset;
    private long endOffset;
    private final TreeMap<Long, InFlight> inFlight = new TreeMap<>();

    public SharePartition(long startOffset, int deliveryCountLimit, int maxInFlightRecords) {
        if (startOffset < 0 || deliveryCountLimit < 1 || maxInFlightRecords < 1) {
            throw new IllegalArgumentException("start " + startOffset + ", delivery count limit " + deliveryCountLimit
                    + ", max in-flight " + maxInFlightRecords);
        }
        this.deliveryCountLimit = deliveryCountLimit;
        this.maxInFlightRecords = maxInFlightRecords;
        this.startOffset = startOffset;
        this.endOffset = startOffset;
    }

    /** A share-partition as persisted: its acquired records' locks were lost with the broker, they are AVAILABLE. */
    public static SharePartition restore(Snapshot s, int deliveryCountLimit, int maxInFlightRecords) {
        SharePartition p = new SharePartition(s.startOffset(), deliveryCountLimit, maxInFlightRecords);
        for (StateBatch b : s.batches()) {
            for (long o = Math.max(b.firstOffset(), s.startOffset()); o <= b.lastOffset(); o++) {
                InFlight r = new InFlight();
                r.state = b.state() == RecordState.ACQUIRED ? RecordState.AVAILABLE : b.state();
                r.deliveryCount = b.deliveryCount();
                if (r.state == RecordState.AVAILABLE && r.deliveryCount >= deliveryCountLimit) {
                    r.state = RecordState.ARCHIVED;
                }
                p.inFlight.put(o, r);
                p.endOffset = Math.max(p.endOffset, o + 1);
            }
        }
        p.advanceStart();
        return p;
    }

    public long startOffset() {
        return startOffset;
    }

    public long endOffset() {
        return endOffset;
    }

    public int inFlightCount() {
        return inFlight.size();
    }

    /** The state of {@code offset}: below start ARCHIVED-or-ACKNOWLEDGED is reported as null (done, forgotten). */
    public RecordState stateOf(long offset) {
        InFlight r = inFlight.get(offset);
        if (r != null) {
            return r.state;
        }
        return offset >= endOffset ? RecordState.AVAILABLE : null;
    }

    public int deliveryCountOf(long offset) {
        InFlight r = inFlight.get(offset);
        return r == null ? 0 : r.deliveryCount;
    }

    /** Who holds {@code offset}'s lock, or null. */
    public String holderOf(long offset) {
        InFlight r = inFlight.get(offset);
        return r == null || r.state != RecordState.ACQUIRED ? null : r.memberId;
    }

    /**
     * Where the next fetch should read from: the first AVAILABLE in-flight record, else the end offset. Locks due at
     * {@code nowMs} are expired first.
     */
    public long nextFetchOffset(long nowMs) {
        expireLocks(nowMs);
        for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
            if (e.getValue().state == RecordState.AVAILABLE) {
                return e.getKey();
            }
        }
        return endOffset;
    }

    /** Whether a fetch could acquire anything now (locks due expired first), given the log's readable end. */
    public boolean hasAcquirable(long readableEndOffset, long nowMs) {
        long next = nextFetchOffset(nowMs);
        return next < endOffset || (next < readableEndOffset && inFlight.size() < maxInFlightRecords);
    }

    /**
     * Acquires for {@code memberId} up to {@code maxRecords} records among the offsets {@code batches} holds (the
     * [first, last] offset ranges of the record batches just read from the log, in order), at or past the start
     * offset: AVAILABLE in-flight ones, and new ones past the end offset while fewer than the in-flight limit are in
     * flight. Each acquired record's delivery count goes up by one and its lock runs until {@code nowMs +
     * lockDurationMs}. {@code batches} must be one contiguous read of the log from at most the end offset on:
     * offsets past the end offset that lie between its batches do not exist (compaction) and are archived.
     */
    public List<AcquiredRange> acquire(
            String memberId, List<long[]> batches, int maxRecords, long lockDurationMs, long nowMs) {
        expireLocks(nowMs);
        List<AcquiredRange> out = new ArrayList<>();
        int acquired = 0;
        long rangeFirst = -1;
        long rangeLast = -1;
        int rangeCount = 0;
        outer:
        for (long[] batch : batches) {
            for (long o = Math.max(batch[0], startOffset); o <= batch[1]; o++) {
                if (acquired >= maxRecords) {
                    break outer;
                }
                InFlight r = inFlight.get(o);
                if (r == null && o >= endOffset) {
                    if (inFlight.size() >= maxInFlightRecords) {
                        break outer;
                    }
                    // the batches are one contiguous read of the log: offsets skipped between them do not exist
                    if (inFlight.isEmpty()) {
                        startOffset = o;
                        endOffset = o;
                    } else if (o - endOffset > maxInFlightRecords) {
                        break outer;
                    }
                    for (long gap = endOffset; gap < o; gap++) {
                        InFlight g = new InFlight();
                        g.state = RecordState.ARCHIVED;
                        inFlight.put(gap, g);
                    }
                    r = new InFlight();
                    inFlight.put(o, r);
                    endOffset = o + 1;
                } else if (r == null || r.state != RecordState.AVAILABLE) {
                    continue;
                }
                r.state = RecordState.ACQUIRED;
                r.deliveryCount++;
                r.memberId = memberId;
                r.lockDeadlineMs = nowMs + lockDurationMs;
                acquired++;
                if (rangeFirst >= 0 && o == rangeLast + 1 && r.deliveryCount == rangeCount) {
                    rangeLast = o;
                } else {
                    if (rangeFirst >= 0) {
                        out.add(new AcquiredRange(rangeFirst, rangeLast, rangeCount));
                    }
                    rangeFirst = o;
                    rangeLast = o;
                    rangeCount = r.deliveryCount;
                }
            }
        }
        if (rangeFirst >= 0) {
            out.add(new AcquiredRange(rangeFirst, rangeLast, rangeCount));
        }
        return out;
    }

    /**
     * Applies one acknowledgement of {@code memberId} to offsets {@code first..last}: all of them must be ACQUIRED by
     * it, else nothing changes and the answer is false (INVALID_RECORD_STATE on the wire).
     */
    public boolean acknowledge(String memberId, long first, long last, AcknowledgeType type, long nowMs) {
        return acknowledge(memberId, first, last, type, nowMs, 0);
    }

    /**
     * As {@link #acknowledge(String, long, long, AcknowledgeType, long)}; a RENEW keeps the records acquired by the
     * member and restarts their locks, to run until {@code nowMs + lockDurationMs}.
     */
    public boolean acknowledge(
            String memberId, long first, long last, AcknowledgeType type, long nowMs, long lockDurationMs) {
        expireLocks(nowMs);
        if (first > last || first < startOffset || last >= endOffset) {
            return false;
        }
        for (long o = first; o <= last; o++) {
            InFlight r = inFlight.get(o);
            if (r == null || r.state != RecordState.ACQUIRED || !r.memberId.equals(memberId)) {
                return false;
            }
        }
        for (long o = first; o <= last; o++) {
            InFlight r = inFlight.get(o);
            switch (type) {
                case ACCEPT -> finish(r, RecordState.ACKNOWLEDGED);
                case REJECT, GAP -> finish(r, RecordState.ARCHIVED);
                case RELEASE -> makeAvailable(r);
                case RENEW -> r.lockDeadlineMs = nowMs + lockDurationMs;
            }
        }
        advanceStart();
        return true;
    }

    /** Releases every record {@code memberId} holds (its share session closed or it left the group). */
    public int releaseAll(String memberId) {
        int released = 0;
        for (InFlight r : inFlight.values()) {
            if (r.state == RecordState.ACQUIRED && r.memberId.equals(memberId)) {
                makeAvailable(r);
                released++;
            }
        }
        advanceStart();
        return released;
    }

    /** Makes every record whose lock is due at {@code nowMs} AVAILABLE again (or ARCHIVED at the limit). */
    public int expireLocks(long nowMs) {
        int expired = 0;
        for (InFlight r : inFlight.values()) {
            if (r.state == RecordState.ACQUIRED && r.lockDeadlineMs <= nowMs) {
                makeAvailable(r);
                expired++;
            }
        }
        if (expired > 0) {
            advanceStart();
        }
        return expired;
    }

    /** The earliest lock deadline, or {@link Long#MAX_VALUE} when nothing is acquired. */
    public long nextLockDeadlineMs() {
        long next = Long.MAX_VALUE;
        for (InFlight r : inFlight.values()) {
            if (r.state == RecordState.ACQUIRED) {
                next = Math.min(next, r.lockDeadlineMs);
            }
        }
        return next;
    }

    /**
     * Moves the start offset to {@code offset} (AlterShareGroupOffsets, or the log start passing it): what lies below
     * is forgotten; a rewind, or a move past the end offset, empties the in-flight records.
     */
    public void resetStartOffset(long offset) {
        if (offset < startOffset || offset >= endOffset) {
            inFlight.clear(); // a rewind, or past everything in flight: the state starts afresh there
            startOffset = offset;
            endOffset = offset;
            return;
        }
        inFlight.headMap(offset, false).clear();
        startOffset = offset;
        advanceStart();
    }

    /**
     * How many records from the start offset up to {@code readableEndOffset} are still to be delivered or finished
     * (DescribeShareGroupOffsets' lag): those not ACKNOWLEDGED or ARCHIVED.
     */
    public long lag(long readableEndOffset) {
        long done = 0;
        for (InFlight r : inFlight.values()) {
            if (r.state.isFinal()) {
                done++;
            }
        }
        return Math.max(0, readableEndOffset - startOffset - done);
    }

    /** Whether a member holds any lock (AlterShareGroupOffsets needs none). */
    public boolean hasAcquired() {
        for (InFlight r : inFlight.values()) {
            if (r.state == RecordState.ACQUIRED) {
                return true;
            }
        }
        return false;
    }

    public Snapshot snapshot() {
        List<StateBatch> batches = new ArrayList<>();
        long first = -1;
        long last = -1;
        RecordState state = null;
        int count = -1;
        for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
            InFlight r = e.getValue();
            RecordState persisted = r.state == RecordState.ACQUIRED ? RecordState.AVAILABLE : r.state;
            long o = e.getKey();
            if (first >= 0 && o == last + 1 && persisted == state && r.deliveryCount == count) {
                last = o;
                continue;
            }
            if (first >= 0) {
                batches.add(new StateBatch(first, last, state, count));
            }
            first = o;
            last = o;
            state = persisted;
            count = r.deliveryCount;
        }
        if (first >= 0) {
            batches.add(new StateBatch(first, last, state, count));
        }
        return new Snapshot(startOffset, batches);
    }

    private void finish(InFlight r, RecordState state) {
        r.state = state;
        r.memberId = null;
    }

    private void makeAvailable(InFlight r) {
        r.memberId = null;
        r.state = r.deliveryCount >= deliveryCountLimit ? RecordState.ARCHIVED : RecordState.AVAILABLE;
    }

    private void advanceStart() {
        Iterator<Map.Entry<Long, InFlight>> it = inFlight.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Long, InFlight> e = it.next();
            if (e.getKey() != startOffset || !e.getValue().state.isFinal()) {
                break;
            }
            it.remove();
            startOffset++;
        }
        if (inFlight.isEmpty()) {
            startOffset = Math.max(startOffset, endOffset);
            endOffset = startOffset;
        }
    }

    /** Throws when an invariant of the class comment does not hold (tests call it after every step). */
    public void checkInvariants() {
        if (startOffset > endOffset) {
            throw new IllegalStateException("start " + startOffset + " > end " + endOffset);
        }
        if (!inFlight.isEmpty()) {
            if (inFlight.firstKey() < startOffset || inFlight.lastKey() >= endOffset) {
                throw new IllegalStateException("in-flight records outside [" + startOffset + ", " + endOffset + ")");
            }
            InFlight head = inFlight.get(startOffset);
            if (head != null && head.state.isFinal()) {
                throw new IllegalStateException("final record left at the start offset " + startOffset);
            }
        }
        for (Map.Entry<Long, InFlight> e : inFlight.entrySet()) {
            InFlight r = e.getValue();
            if ((r.state == RecordState.ACQUIRED) != (r.memberId != null)) {
                throw new IllegalStateException("offset " + e.getKey() + " " + r.state + " held by " + r.memberId);
            }
            boolean delivered = r.state == RecordState.ACQUIRED || r.state == RecordState.ACKNOWLEDGED;
            if (r.deliveryCount > deliveryCountLimit || (delivered && r.deliveryCount < 1)) {
                throw new IllegalStateException("offset " + e.getKey() + " delivery count " + r.deliveryCount);
            }
        }
    }
}
