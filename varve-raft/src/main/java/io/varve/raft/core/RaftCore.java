package io.varve.raft.core;

import static io.varve.raft.core.message.RaftMessage.NO_ID;

import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.BeginQuorumEpochResponse;
import io.varve.raft.core.message.DescribeQuorumRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.EndQuorumEpochRequest;
import io.varve.raft.core.message.EndQuorumEpochResponse;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.FetchRequest;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.FetchSnapshotRequest;
import io.varve.raft.core.message.FetchSnapshotResponse;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftRequest;
import io.varve.raft.core.message.RaftResponse;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import io.varve.raft.core.message.SnapshotId;
import io.varve.raft.core.message.UpdateVoterRequest;
import io.varve.raft.core.message.UpdateVoterResponse;
import io.varve.raft.core.message.VoteRequest;
import io.varve.raft.core.message.VoteResponse;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.runtime.QuorumStateStore;
import io.varve.raft.core.runtime.RaftLog;
import io.varve.raft.core.runtime.SnapshotStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * One Raft replica modelled on KRaft (KIP-595 pull replication, KIP-996 pre-vote, KIP-630 snapshots),
 * as a pure state machine: no threads, no clock, no sockets. The caller feeds it messages ({@link
 * #handle}) and time ({@link #poll}), and carries out the {@link RaftOutput} each call returns; the log,
 * the election record and the snapshots are written through the injected seams during the call.
 *
 * <p>Threading contract: one thread at a time; {@code nowMs} never decreases between calls.
 */
public final class RaftCore {
    private final CoreContext ctx;
    private final VoteHandler votes;
    private final BeginQuorumEpochHandler beginQuorumEpoch;
    private final EndQuorumEpochHandler endQuorumEpoch;
    private final FetchRequestHandler fetchRequests;
    private final FetchResponseHandler fetchResponses;
    private final FetchSnapshotHandler fetchSnapshots;
    private final DescribeQuorumHandler describeQuorum;
    private final VoterChangeHandler voterChanges;
    private long lastNowMs;

    public RaftCore(
            RaftCoreConfig config,
            RaftLog log,
            QuorumStateStore store,
            SnapshotStore snapshots,
            Random random,
            long nowMs) {
        this(config, log, store, snapshots, random, VoteRule.RAFT, nowMs);
    }

    /** With a {@link VoteRule} other than Raft's: for tests that plant a bug, never in production. */
    public RaftCore(
            RaftCoreConfig config,
            RaftLog log,
            QuorumStateStore store,
            SnapshotStore snapshots,
            Random random,
            VoteRule voteRule,
            long nowMs) {
        if (snapshots.latest().isPresent() && snapshots.latest().get().endOffset() < log.startOffset()) {
            throw new IllegalStateException("the log starts past the latest snapshot");
        }
        if (snapshots.latest().isPresent() && snapshots.latest().get().endOffset() > log.startOffset()) {
            finishLogStartMove(log, snapshots.latest().get());
        }
        VoterSet base = snapshots
                .latest()
                .map(id -> SnapshotFormat.voters(snapshots, id))
                .orElseGet(config::bootstrapVoterSet);
        VoterTrackingLog trackedLog = new VoterTrackingLog(log, new VoterHistory(base));
        CommitTracker commits = new CommitTracker(log.startOffset(), snapshots.latest());
        QuorumState quorum =
                new QuorumState(config, trackedLog.history, commits, store, random, log.lastEpoch(), nowMs);
        this.ctx = new CoreContext(config, trackedLog, snapshots, quorum, commits, voteRule, random);
        this.votes = new VoteHandler(ctx);
        this.beginQuorumEpoch = new BeginQuorumEpochHandler(ctx);
        this.endQuorumEpoch = new EndQuorumEpochHandler(ctx);
        this.fetchRequests = new FetchRequestHandler(ctx);
        this.fetchResponses = new FetchResponseHandler(ctx);
        this.fetchSnapshots = new FetchSnapshotHandler(ctx);
        this.describeQuorum = new DescribeQuorumHandler(ctx);
        this.voterChanges = new VoterChangeHandler(ctx);
        this.lastNowMs = nowMs;
    }

    /**
     * A crash between storing a snapshot and moving the log start past it (taking one, or installing one
     * fetched from the leader) leaves the log behind the snapshot: finish the move, keeping the entries
     * above the snapshot only when the log holds its last entry with its epoch (then, by log matching,
     * they continue the same history).
     */
    private static void finishLogStartMove(RaftLog log, SnapshotId snapshot) {
        long end = snapshot.endOffset();
        if (end <= log.endOffset() && log.read(end - 1, end, 1).get(0).epoch() == snapshot.epoch()) {
            log.advanceStart(snapshot);
        } else {
            log.resetTo(snapshot);
        }
    }

    /** Handles one message from the network, then runs whatever timers are due. */
    public RaftOutput handle(InboundMessage in, long nowMs) {
        advanceClock(nowMs);
        if (in.message() instanceof RaftRequest request) {
            handleRequest(in, request, nowMs);
        } else {
            handleResponse(in, (RaftResponse) in.message(), nowMs);
        }
        runTimers(nowMs);
        return output();
    }

    /** Runs due timers: elections, fetches, check-quorum, flushing the leader's log, parked fetches. */
    public RaftOutput poll(long nowMs) {
        advanceClock(nowMs);
        runTimers(nowMs);
        return output();
    }

    /** Appends entries if this replica leads; they commit once the high watermark passes them. */
    public Proposal propose(List<byte[]> payloads, long nowMs) {
        advanceClock(nowMs);
        if (payloads.isEmpty() || payloads.size() > ctx.config.maxFetchEntries()) {
            throw new IllegalArgumentException("propose 1 to " + ctx.config.maxFetchEntries() + " entries");
        }
        EpochState state = ctx.state();
        if (!(state instanceof LeaderState)) {
            return new Proposal(RaftError.NOT_LEADER_OR_FOLLOWER, state.epoch(), -1, state.leaderId());
        }
        long baseOffset = ctx.log.endOffset();
        List<LogEntry> entries = new ArrayList<>(payloads.size());
        for (int i = 0; i < payloads.size(); i++) {
            entries.add(new LogEntry(baseOffset + i, state.epoch(), EntryType.DATA, payloads.get(i)));
        }
        ctx.log.append(entries);
        return new Proposal(RaftError.NONE, state.epoch(), baseOffset, ctx.nodeId());
    }

    /** Graceful resignation: the leader ends its epoch and names its best successors. */
    public RaftOutput resign(long nowMs) {
        advanceClock(nowMs);
        if (ctx.state() instanceof LeaderState) {
            endQuorumEpoch.resign(nowMs);
        }
        return output();
    }

    /**
     * Records that the state machine saved its state of every entry below {@code endOffset} (at most
     * what it was handed) and moves the log start there. The stored snapshot is {@code data} behind a
     * header with the voter set ({@link SnapshotFormat}).
     */
    public SnapshotId snapshotTaken(long endOffset, byte[] data) {
        long delivered = ctx.commits.deliveredEndOffset();
        if (endOffset <= ctx.log.startOffset() || endOffset > delivered) {
            throw new IllegalArgumentException(
                    "snapshot end " + endOffset + " outside (" + ctx.log.startOffset() + ", " + delivered + "]");
        }
        LogEntry last = ctx.log.read(endOffset - 1, endOffset, 1).get(0);
        SnapshotId id = new SnapshotId(endOffset, last.epoch());
        ctx.snapshots.write(id, SnapshotFormat.wrap(ctx.log.history.at(endOffset), data));
        ctx.log.advanceStart(id);
        return id;
    }

    public int nodeId() {
        return ctx.nodeId();
    }

    public Role role() {
        return ctx.quorum.role();
    }

    public int epoch() {
        return ctx.epoch();
    }

    /** The leader of the current epoch as this replica knows it, or -1. */
    public int leaderId() {
        return ctx.state().leaderId();
    }

    public int votedId() {
        return ctx.quorum.votedId();
    }

    public long highWatermark() {
        return ctx.commits.highWatermark();
    }

    /** Kafka's kraft.version of this quorum: 0 static voters, 1 voter changes through the log (KIP-853). */
    public int kraftVersion() {
        return ctx.config.kraftVersion();
    }

    /** The voter set in effect on this replica. */
    public VoterSet voters() {
        return ctx.voters();
    }

    private void handleRequest(InboundMessage in, RaftRequest request, long nowMs) {
        if (request instanceof VoteRequest vote) {
            votes.handleRequest(in, vote, nowMs);
        } else if (request instanceof BeginQuorumEpochRequest begin) {
            beginQuorumEpoch.handleRequest(in, begin, nowMs);
        } else if (request instanceof EndQuorumEpochRequest end) {
            endQuorumEpoch.handleRequest(in, end, nowMs);
        } else if (request instanceof FetchRequest fetch) {
            fetchRequests.handleRequest(in, fetch, nowMs);
        } else if (request instanceof FetchSnapshotRequest fetchSnapshot) {
            fetchSnapshots.handleRequest(in, fetchSnapshot, nowMs);
        } else if (request instanceof AddVoterRequest add) {
            voterChanges.handleAdd(in, add, nowMs);
        } else if (request instanceof RemoveVoterRequest remove) {
            voterChanges.handleRemove(in, remove, nowMs);
        } else if (request instanceof UpdateVoterRequest update) {
            voterChanges.handleUpdate(in, update, nowMs);
        } else {
            describeQuorum.handleRequest(in, (DescribeQuorumRequest) request, nowMs);
        }
    }

    private void handleResponse(InboundMessage in, RaftResponse response, long nowMs) {
        if (response instanceof DescribeQuorumResponse
                || response instanceof AddVoterResponse
                || response instanceof RemoveVoterResponse) {
            return; // this replica never asks
        }
        if (!ctx.pending.complete(in.correlationId(), in.sourceId(), requestKindOf(response))) {
            return; // late, duplicated, or sent by an earlier role
        }
        if (response.error() == RaftError.INCONSISTENT_CLUSTER_ID
                || response.error() == RaftError.INCONSISTENT_VOTER_SET) {
            return; // misconfiguration: nothing this replica can learn from the answer
        }
        if (response.leaderEpoch() >= 0 && !prospectiveKeepsCampaigning(response, nowMs)) {
            ctx.observeLeader(response.leaderEpoch(), response.leaderId(), nowMs);
        }
        if (response instanceof VoteResponse vote) {
            votes.handleResponse(in, vote, nowMs);
        } else if (response instanceof BeginQuorumEpochResponse begin) {
            beginQuorumEpoch.handleResponse(in, begin, nowMs);
        } else if (response instanceof EndQuorumEpochResponse end) {
            endQuorumEpoch.handleResponse(in, end, nowMs);
        } else if (response instanceof FetchResponse fetch) {
            fetchResponses.handleResponse(in, fetch, nowMs);
        } else if (response instanceof UpdateVoterResponse) {
            // Nothing to do: the voter set this replica fetches shows whether the update committed, and
            // maybeSendUpdate asks again after the request timeout while it has not.
        } else {
            fetchSnapshots.handleResponse(in, (FetchSnapshotResponse) response, nowMs);
        }
    }

    /**
     * Whether a prospective's answer in its own epoch leaves it campaigning although it names a leader. A granted
     * pre-vote does: the granter does not hear from the leader it names either (a replica in contact with its leader
     * refuses pre-votes), so the answer is a vote, not news of a live leader; following that leader again on it let two
     * followers of a dead leader turn each other back into followers forever. A refusal naming the leader this replica
     * doubts does too, for one election timeout (below).
     */
    private boolean prospectiveKeepsCampaigning(RaftResponse response, long nowMs) {
        if (!(response instanceof VoteResponse vote)
                || !(ctx.state() instanceof ProspectiveState prospective)
                || vote.leaderEpoch() != ctx.epoch()) {
            return false;
        }
        if (vote.voteGranted()) {
            return true;
        }
        if (vote.leaderId() < 0 || vote.leaderId() != prospective.retainedLeaderId) {
            return false; // news of a leader this replica did not doubt: follow it
        }
        // Refused by a replica that still hears the leader this one doubts. Following that leader again at once cost a
        // whole fetch timeout when it was dead (the other replica doubts it a moment later); ask again soon instead,
        // and follow it again only once this replica has doubted it for an election timeout (then it is alive).
        if (nowMs - prospective.doubtingSinceMs >= ctx.config.electionTimeoutMs()) {
            return false;
        }
        prospective.electionDeadlineMs = Math.min(prospective.electionDeadlineMs, nowMs + ctx.quorum.randomBackoffMs());
        return true;
    }

    private static Class<? extends RaftRequest> requestKindOf(RaftResponse response) {
        if (response instanceof VoteResponse) {
            return VoteRequest.class;
        } else if (response instanceof BeginQuorumEpochResponse) {
            return BeginQuorumEpochRequest.class;
        } else if (response instanceof EndQuorumEpochResponse) {
            return EndQuorumEpochRequest.class;
        } else if (response instanceof FetchResponse) {
            return FetchRequest.class;
        } else if (response instanceof FetchSnapshotResponse) {
            return FetchSnapshotRequest.class;
        } else if (response instanceof AddVoterResponse) {
            return AddVoterRequest.class;
        } else if (response instanceof RemoveVoterResponse) {
            return RemoveVoterRequest.class;
        } else if (response instanceof UpdateVoterResponse) {
            return UpdateVoterRequest.class;
        }
        return DescribeQuorumRequest.class;
    }

    private void runTimers(long nowMs) {
        ctx.pending.expire(nowMs, ctx.config.requestTimeoutMs());
        EpochState state = ctx.state();
        boolean voter = ctx.quorum.mayCampaign();
        if (!voter
                && (state instanceof ProspectiveState
                        || state instanceof CandidateState
                        || state instanceof ResignedState)) {
            // Removed from the voter set (or a removed leader that resigned): watch as an observer.
            ctx.becomeUnattached(state.epoch(), NO_ID, Long.MAX_VALUE, nowMs);
            state = ctx.state();
        }
        if (state instanceof UnattachedState unattached) {
            if (voter && nowMs >= unattached.electionDeadlineMs) {
                votes.startPreVote(nowMs);
            } else if (!voter && nowMs >= unattached.discoveryDeadlineMs) {
                fetchResponses.discoverLeader(unattached, nowMs);
            }
        } else if (state instanceof ProspectiveState prospective) {
            if (nowMs >= prospective.electionDeadlineMs) {
                votes.startPreVote(nowMs);
            }
        } else if (state instanceof CandidateState candidate) {
            if (nowMs >= candidate.electionDeadlineMs) {
                votes.startPreVote(nowMs);
            }
        } else if (state instanceof ResignedState resigned) {
            if (nowMs >= resigned.electionDeadlineMs) {
                votes.startPreVote(nowMs);
            }
        } else if (state instanceof FollowerState follower) {
            runFollowerTimers(follower, nowMs);
        } else {
            runLeaderTimers((LeaderState) state, nowMs);
        }
    }

    private void runFollowerTimers(FollowerState follower, long nowMs) {
        if (nowMs >= follower.fetchDeadlineMs) {
            if (ctx.quorum.mayCampaign()) {
                votes.startPreVote(nowMs);
            } else {
                ctx.becomeUnattached(follower.epoch(), NO_ID, Long.MAX_VALUE, nowMs);
            }
            return;
        }
        fetchResponses.maybeFetch(follower, nowMs);
        voterChanges.maybeSendUpdate(follower, nowMs);
    }

    private void runLeaderTimers(LeaderState leader, long nowMs) {
        if (ctx.log.flushedEndOffset() < ctx.log.endOffset()) {
            ctx.log.flush();
        }
        fetchRequests.updateHighWatermark(leader);
        voterChanges.completeCommitted(leader);
        if (!ctx.quorum.isVoter() && ctx.commits.highWatermark() > ctx.log.history.lastChangeOffset()) {
            // KIP-853: a leader leads until its own removal commits, then resigns.
            endQuorumEpoch.resign(nowMs);
            return;
        }
        if (nowMs - leader.electedAtMs >= ctx.config.fetchTimeoutMs()
                && !leader.hasQuorumContact(ctx.voters(), nowMs, ctx.config.fetchTimeoutMs())) {
            // Check-quorum: a leader cut off from a majority stops pretending to lead.
            endQuorumEpoch.resign(nowMs);
            return;
        }
        if (nowMs >= leader.beginQuorumResendAtMs) {
            votes.sendBeginQuorumEpoch(leader, nowMs);
        }
        fetchRequests.completeParked(leader, nowMs);
    }

    private void advanceClock(long nowMs) {
        if (nowMs < lastNowMs) {
            throw new IllegalArgumentException("time went back: " + nowMs + " < " + lastNowMs);
        }
        lastNowMs = nowMs;
    }

    private RaftOutput output() {
        return new RaftOutput(
                ctx.drainOutbox(),
                ctx.commits.takeSnapshotToLoad(),
                ctx.commits.takeCommitted(ctx.log, ctx.config.maxCommittedPerOutput()),
                ctx.commits.highWatermark());
    }
}
