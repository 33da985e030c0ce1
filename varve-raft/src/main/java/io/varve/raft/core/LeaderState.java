package io.varve.raft.core;

import io.varve.raft.core.message.DescribeQuorumResponse.ReplicaProgress;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.VoterSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Leading an epoch: what each replica has replicated (voters count for the high watermark, observers
 * never do), fetches parked until there is something new (long polling), when each voter last fetched
 * (check-quorum), which voters have not yet heard of this epoch (BeginQuorumEpoch is resent to them), and
 * the one voter change in flight. The voter set can change during the epoch (KIP-853), so every question
 * takes the set in effect.
 */
final class LeaderState implements EpochState {
    /** Replicas tracked beyond the voters; the least recently seen non-voter is forgotten past this. */
    static final int MAX_OBSERVERS = 256;

    private final int epoch;
    private final int selfId;
    /** The offset of this epoch's LeaderChange entry: nothing commits until it does. */
    final long epochStartOffset;

    final long electedAtMs;
    private final LinkedHashMap<Integer, Progress> replicas = new LinkedHashMap<>(16, 0.75f, true);
    final Map<Integer, ParkedFetch> parked = new HashMap<>();
    long beginQuorumResendAtMs;
    PendingVoterChange pendingVoterChange;

    LeaderState(int epoch, int selfId, long epochStartOffset, long nowMs) {
        this.epoch = epoch;
        this.selfId = selfId;
        this.epochStartOffset = epochStartOffset;
        this.electedAtMs = nowMs;
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

    /** Records a validated fetch: the replica holds exactly the leader's entries below {@code endOffset}. */
    void recordFetch(int replicaId, long endOffset, long leaderEndOffset, VoterSet voters, long nowMs) {
        Progress progress = progressOf(replicaId, voters);
        // It may go back: a replica that crashed lost its unflushed tail. The high watermark, which
        // only moves forward, is unaffected: what a majority had flushed stays on a majority.
        progress.endOffset = endOffset;
        progress.lastFetchMs = nowMs;
        if (endOffset >= leaderEndOffset) {
            progress.lastCaughtUpMs = nowMs;
        }
    }

    /** The directory id a replica fetches with (KIP-853): what DescribeQuorum shows and AddVoter checks. */
    void recordDirectory(int replicaId, UUID directoryId, VoterSet voters) {
        if (!VoterSet.Voter.NO_DIRECTORY_ID.equals(directoryId)) {
            progressOf(replicaId, voters).directoryId = directoryId;
        }
    }

    /** The directory id a replica last fetched with, or the zero uuid. */
    UUID fetchedDirectoryId(int replicaId) {
        Progress progress = replicas.get(replicaId);
        return progress == null ? VoterSet.Voter.NO_DIRECTORY_ID : progress.directoryId;
    }

    /** Any contact from a replica (a snapshot fetch too) counts for check-quorum. */
    void recordContact(int replicaId, VoterSet voters, long nowMs) {
        progressOf(replicaId, voters).lastFetchMs = nowMs;
    }

    /** The high watermark last sent to a replica (-1 if none): a caught-up fetch parks only if it knows it. */
    long highWatermarkSent(int replicaId) {
        Progress progress = replicas.get(replicaId);
        return progress == null ? -1 : progress.highWatermarkSent;
    }

    void sentHighWatermark(int replicaId, long highWatermark, VoterSet voters) {
        progressOf(replicaId, voters).highWatermarkSent = highWatermark;
    }

    /** Whether a replica fetched recently and holds everything below {@code offset}: ready to become a voter. */
    boolean isCaughtUp(int replicaId, long offset, long nowMs, long windowMs) {
        Progress progress = replicas.get(replicaId);
        return progress != null
                && progress.lastFetchMs >= 0
                && nowMs - progress.lastFetchMs < windowMs
                && progress.endOffset >= offset;
    }

    private Progress progressOf(int replicaId, VoterSet voters) {
        Progress progress = replicas.computeIfAbsent(replicaId, Progress::new);
        if (replicas.size() > voters.size() + MAX_OBSERVERS) {
            Iterator<Integer> eldest = replicas.keySet().iterator();
            while (eldest.hasNext()) {
                int id = eldest.next();
                if (!voters.contains(id) && id != replicaId) {
                    eldest.remove();
                    break;
                }
            }
        }
        return progress;
    }

    private long endOffsetOf(int voterId, long selfFlushedEndOffset) {
        if (voterId == selfId) {
            return selfFlushedEndOffset;
        }
        Progress progress = replicas.get(voterId);
        return progress == null ? 0 : Math.max(progress.endOffset, 0);
    }

    /**
     * The largest offset that a majority of voters hold, counting this leader at {@code selfFlushedEndOffset}
     * (only what it flushed) if it is a voter. Not yet a high watermark: the caller applies the
     * current-epoch rule.
     */
    long majorityReplicatedOffset(VoterSet voters, long selfFlushedEndOffset) {
        long[] ends = new long[voters.size()];
        int i = 0;
        for (int id : voters.ids()) {
            ends[i++] = endOffsetOf(id, selfFlushedEndOffset);
        }
        Arrays.sort(ends);
        // Sorted ascending: the element at n - majority is held by at least a majority.
        return ends[ends.length - voters.majority()];
    }

    /** Whether a majority of voters (this leader included, if it is one) fetched within {@code fetchTimeoutMs}. */
    boolean hasQuorumContact(VoterSet voters, long nowMs, long fetchTimeoutMs) {
        int recent = 0;
        for (int id : voters.ids()) {
            Progress progress = replicas.get(id);
            if (id == selfId
                    || (progress != null
                            && progress.lastFetchMs >= 0
                            && nowMs - progress.lastFetchMs < fetchTimeoutMs)) {
                recent++;
            }
        }
        return recent >= voters.majority();
    }

    /** Voters that have not fetched in this epoch yet, so may not know of it. */
    List<Integer> votersNotYetFetched(VoterSet voters) {
        List<Integer> ids = new ArrayList<>();
        for (int id : voters.ids()) {
            Progress progress = replicas.get(id);
            if (id != selfId && (progress == null || progress.lastFetchMs < 0)) {
                ids.add(id);
            }
        }
        ids.sort(null);
        return ids;
    }

    /** Other voters, most replicated first: the order of preferred successors when resigning. */
    List<Integer> votersByProgress(VoterSet voters) {
        List<Integer> ids = new ArrayList<>();
        for (int id : voters.ids()) {
            if (id != selfId) {
                ids.add(id);
            }
        }
        ids.sort((a, b) -> {
            long endA = endOffsetOf(a, 0);
            long endB = endOffsetOf(b, 0);
            return endA != endB ? Long.compare(endB, endA) : Integer.compare(a, b);
        });
        return ids;
    }

    List<ReplicaProgress> describe(VoterSet voters, boolean wantVoters, long selfEndOffset, long nowMs) {
        List<ReplicaProgress> out = new ArrayList<>();
        if (wantVoters && voters.contains(selfId)) {
            out.add(new ReplicaProgress(selfId, directoryOf(voters, selfId), selfEndOffset, nowMs, nowMs));
        }
        for (Progress progress : replicas.values()) {
            if (progress.replicaId != selfId && voters.contains(progress.replicaId) == wantVoters) {
                UUID listed = directoryOf(voters, progress.replicaId);
                out.add(progress.describe(
                        VoterSet.Voter.NO_DIRECTORY_ID.equals(listed) ? progress.directoryId : listed));
            }
        }
        if (wantVoters) {
            for (int id : voters.ids()) {
                if (id != selfId && !replicas.containsKey(id)) {
                    out.add(new ReplicaProgress(id, directoryOf(voters, id), -1, -1, -1));
                }
            }
        }
        out.sort((a, b) -> Integer.compare(a.replicaId(), b.replicaId()));
        return out;
    }

    private static UUID directoryOf(VoterSet voters, int id) {
        return voters.voter(id).map(VoterSet.Voter::directoryId).orElse(VoterSet.Voter.NO_DIRECTORY_ID);
    }

    /** A fetch held until the log grows, the high watermark moves, or its wait ends. */
    record ParkedFetch(int sourceId, long correlationId, FetchRequest request, long deadlineMs) {}

    /** What kind of voter change is in flight: it decides the response. */
    enum VoterChangeKind {
        ADD,
        REMOVE,
        UPDATE
    }

    /** An AddVoter, RemoveVoter or UpdateVoter appended at {@code offset}, answered once it commits. */
    record PendingVoterChange(int sourceId, long correlationId, long offset, VoterChangeKind kind) {}

    private static final class Progress {
        final int replicaId;
        long endOffset = -1;
        long lastFetchMs = -1;
        long lastCaughtUpMs = -1;
        long highWatermarkSent = -1;
        UUID directoryId = VoterSet.Voter.NO_DIRECTORY_ID;

        Progress(int replicaId) {
            this.replicaId = replicaId;
        }

        ReplicaProgress describe(UUID directoryId) {
            return new ReplicaProgress(replicaId, directoryId, endOffset, lastFetchMs, lastCaughtUpMs);
        }
    }
}
