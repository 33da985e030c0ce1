package io.varve.raft.core;

import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.FetchRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Leading an epoch: what each replica has replicated (voters count for the high watermark, observers
 * never do), fetches parked until there is something new (long polling), when each voter last fetched
 * (check-quorum) and which voters have not yet heard of this epoch (BeginQuorumEpoch is resent to them).
 */
final class LeaderState implements EpochState {
    /** Observers tracked for DescribeQuorum; the least recently seen is forgotten beyond this. */
    static final int MAX_OBSERVERS = 256;

    private final int epoch;
    private final int selfId;
    /** The offset of this epoch's LeaderChange entry: nothing commits until it does. */
    final long epochStartOffset;

    final long electedAtMs;
    private final Map<Integer, Progress> voters = new HashMap<>();
    private final LinkedHashMap<Integer, Progress> observers = new LinkedHashMap<>(16, 0.75f, true);
    final Map<Integer, ParkedFetch> parked = new HashMap<>();
    long beginQuorumResendAtMs;

    LeaderState(int epoch, int selfId, Set<Integer> voterIds, long epochStartOffset, long nowMs) {
        if (!voterIds.contains(selfId)) {
            throw new IllegalStateException("a leader is a voter: " + selfId);
        }
        this.epoch = epoch;
        this.selfId = selfId;
        this.epochStartOffset = epochStartOffset;
        this.electedAtMs = nowMs;
        for (int id : voterIds) {
            voters.put(id, new Progress(id));
        }
    }

    @Override
    public int epoch() {
        return epoch;
    }

    @Override
    public int leaderId() {
        return selfId;
    }

    @Override
    public Role role() {
        return Role.LEADER;
    }

    boolean isVoter(int replicaId) {
        return voters.containsKey(replicaId);
    }

    /** Records a validated fetch: the replica holds exactly the leader's entries below {@code endOffset}. */
    void recordFetch(int replicaId, long endOffset, long leaderEndOffset, long nowMs) {
        Progress progress = progressOf(replicaId);
        // It may go back: a replica that crashed lost its unflushed tail. The high watermark, which
        // only moves forward, is unaffected: what a majority had flushed stays on a majority.
        progress.endOffset = endOffset;
        progress.lastFetchMs = nowMs;
        if (endOffset >= leaderEndOffset) {
            progress.lastCaughtUpMs = nowMs;
        }
    }

    /** The high watermark last sent to a replica (-1 if none): a caught-up fetch parks only if it knows it. */
    long highWatermarkSent(int replicaId) {
        return progressOf(replicaId).highWatermarkSent;
    }

    void sentHighWatermark(int replicaId, long highWatermark) {
        progressOf(replicaId).highWatermarkSent = highWatermark;
    }

    /** Any contact from a voter (a snapshot fetch too) counts for check-quorum. */
    void recordContact(int replicaId, long nowMs) {
        progressOf(replicaId).lastFetchMs = nowMs;
    }

    private Progress progressOf(int replicaId) {
        Progress progress = voters.get(replicaId);
        if (progress != null) {
            return progress;
        }
        progress = observers.computeIfAbsent(replicaId, Progress::new);
        if (observers.size() > MAX_OBSERVERS) {
            Iterator<Integer> eldest = observers.keySet().iterator();
            eldest.next();
            eldest.remove();
        }
        return progress;
    }

    /**
     * The largest offset that a majority of voters hold, counting this leader at {@code selfFlushedEndOffset}
     * (only what it flushed). Not yet a high watermark: the caller applies the current-epoch rule.
     */
    long majorityReplicatedOffset(long selfFlushedEndOffset) {
        long[] ends = new long[voters.size()];
        int i = 0;
        for (Progress progress : voters.values()) {
            ends[i++] = progress.replicaId == selfId ? selfFlushedEndOffset : Math.max(progress.endOffset, 0);
        }
        Arrays.sort(ends);
        // Sorted ascending: the element at n - majority is held by at least a majority.
        return ends[ends.length - (ends.length / 2 + 1)];
    }

    /** Whether a majority of voters (this leader included) fetched within {@code fetchTimeoutMs}. */
    boolean hasQuorumContact(long nowMs, long fetchTimeoutMs) {
        int recent = 0;
        for (Progress progress : voters.values()) {
            if (progress.replicaId == selfId
                    || (progress.lastFetchMs >= 0 && nowMs - progress.lastFetchMs < fetchTimeoutMs)) {
                recent++;
            }
        }
        return recent >= voters.size() / 2 + 1;
    }

    /** Voters that have not fetched in this epoch yet, so may not know of it. */
    List<Integer> votersNotYetFetched() {
        List<Integer> ids = new ArrayList<>();
        for (Progress progress : voters.values()) {
            if (progress.replicaId != selfId && progress.lastFetchMs < 0) {
                ids.add(progress.replicaId);
            }
        }
        ids.sort(null);
        return ids;
    }

    /** Other voters, most replicated first: the order of preferred successors when resigning. */
    List<Integer> votersByProgress() {
        List<Progress> others = new ArrayList<>();
        for (Progress progress : voters.values()) {
            if (progress.replicaId != selfId) {
                others.add(progress);
            }
        }
        others.sort((a, b) -> a.endOffset != b.endOffset
                ? Long.compare(b.endOffset, a.endOffset)
                : Integer.compare(a.replicaId, b.replicaId));
        List<Integer> ids = new ArrayList<>(others.size());
        for (Progress progress : others) {
            ids.add(progress.replicaId);
        }
        return ids;
    }

    List<ReplicaProgress> describeVoters(long selfEndOffset, long nowMs) {
        List<ReplicaProgress> out = new ArrayList<>();
        for (Progress progress : voters.values()) {
            out.add(
                    progress.replicaId == selfId
                            ? new ReplicaProgress(selfId, selfEndOffset, nowMs, nowMs)
                            : progress.describe());
        }
        out.sort((a, b) -> Integer.compare(a.replicaId(), b.replicaId()));
        return out;
    }

    List<ReplicaProgress> describeObservers() {
        List<ReplicaProgress> out = new ArrayList<>();
        for (Progress progress : observers.values()) {
            out.add(progress.describe());
        }
        out.sort((a, b) -> Integer.compare(a.replicaId(), b.replicaId()));
        return out;
    }

    /** A fetch held until the log grows, the high watermark moves, or its wait ends. */
    record ParkedFetch(int sourceId, long correlationId, FetchRequest request, long deadlineMs) {}

    private static final class Progress {
        final int replicaId;
        long endOffset = -1;
        long lastFetchMs = -1;
        long lastCaughtUpMs = -1;
        long highWatermarkSent = -1;

        Progress(int replicaId) {
            this.replicaId = replicaId;
        }

        ReplicaProgress describe() {
            return new ReplicaProgress(replicaId, endOffset, lastFetchMs, lastCaughtUpMs);
        }
    }
}
