package io.varve.raft.core;

import io.varve.raft.core.LeaderState.PendingVoterChange;
import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftResponse;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import io.varve.raft.core.message.VoterSet;
import java.util.List;

/**
 * AddVoter and RemoveVoter (KIP-853): the leader appends the whole new voter set as a VOTERS entry, in
 * effect at once on every replica that appends it, one change at a time (the previous one and this
 * epoch's LeaderChange must have committed), and answers once it commits. A replica joins only once it
 * fetches and has caught up to the high watermark.
 */
final class VoterChangeHandler {
    private final CoreContext ctx;

    VoterChangeHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    void handleAdd(InboundMessage in, AddVoterRequest request, long nowMs) {
        change(in, request.clusterId(), request.voterId(), true, nowMs);
    }

    void handleRemove(InboundMessage in, RemoveVoterRequest request, long nowMs) {
        change(in, request.clusterId(), request.voterId(), false, nowMs);
    }

    private void change(InboundMessage in, String clusterId, int voterId, boolean add, long nowMs) {
        RaftError error = config(clusterId);
        String message = null;
        EpochState state = ctx.state();
        VoterSet voters = ctx.voters();
        long highWatermark = ctx.commits.highWatermark();
        if (error == RaftError.NONE && !(state instanceof LeaderState)) {
            error = RaftError.NOT_LEADER_OR_FOLLOWER;
        }
        if (error == RaftError.NONE) {
            LeaderState leader = (LeaderState) state;
            if (!ctx.quorum.isVoter()) {
                error = RaftError.REQUEST_TIMED_OUT;
                message = "this leader is being removed from the voter set";
            } else if (highWatermark <= leader.epochStartOffset
                    || ctx.log.history.lastChangeOffset() >= highWatermark
                    || leader.pendingVoterChange != null) {
                error = RaftError.REQUEST_TIMED_OUT;
                message = "a voter change or this epoch's start is not committed yet";
            } else if (add && voters.contains(voterId)) {
                error = RaftError.DUPLICATE_VOTER;
            } else if (add && voters.size() >= VoterSet.MAX_VOTERS) {
                error = RaftError.INVALID_REQUEST;
                message = "at most " + VoterSet.MAX_VOTERS + " voters";
            } else if (add && !leader.isCaughtUp(voterId, highWatermark, nowMs, ctx.config.fetchTimeoutMs())) {
                error = RaftError.REQUEST_TIMED_OUT;
                message = "replica " + voterId + " has not caught up";
            } else if (!add && !voters.contains(voterId)) {
                error = RaftError.VOTER_NOT_FOUND;
            } else if (!add && voters.size() == 1) {
                error = RaftError.INVALID_REQUEST;
                message = "the last voter cannot be removed";
            }
        }
        if (error != RaftError.NONE) {
            ctx.respond(in, response(add, error, message));
            return;
        }
        LeaderState leader = (LeaderState) state;
        VoterSet next = add ? voters.with(voterId) : voters.without(voterId);
        long offset = ctx.log.endOffset();
        ctx.log.append(List.of(new LogEntry(offset, leader.epoch(), EntryType.VOTERS, next.encode())));
        leader.pendingVoterChange = new PendingVoterChange(in.sourceId(), in.correlationId(), offset, add);
    }

    /** Answers the change in flight once the high watermark passed it. */
    void completeCommitted(LeaderState leader) {
        PendingVoterChange pending = leader.pendingVoterChange;
        if (pending != null && ctx.commits.highWatermark() > pending.offset()) {
            leader.pendingVoterChange = null;
            ctx.respond(pending.sourceId(), pending.correlationId(), response(pending.add(), RaftError.NONE, null));
        }
    }

    private RaftError config(String clusterId) {
        return ctx.config.clusterId().equals(clusterId) ? RaftError.NONE : RaftError.INCONSISTENT_CLUSTER_ID;
    }

    private RaftResponse response(boolean add, RaftError error, String message) {
        EpochState state = ctx.state();
        return add
                ? new AddVoterResponse(error, message, state.leaderId(), state.epoch())
                : new RemoveVoterResponse(error, message, state.leaderId(), state.epoch());
    }
}
