package io.varve.raft.core;

import io.varve.raft.core.LeaderState.PendingVoterChange;
import io.varve.raft.core.LeaderState.VoterChangeKind;
import io.varve.raft.core.message.AddVoterRequest;
import io.varve.raft.core.message.AddVoterResponse;
import io.varve.raft.core.message.EntryType;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.LogEntry;
import io.varve.raft.core.message.RaftError;
import io.varve.raft.core.message.RaftResponse;
import io.varve.raft.core.message.RemoveVoterRequest;
import io.varve.raft.core.message.RemoveVoterResponse;
import io.varve.raft.core.message.UpdateVoterRequest;
import io.varve.raft.core.message.UpdateVoterResponse;
import io.varve.raft.core.message.VoterSet;
import io.varve.raft.core.message.VoterSet.Voter;
import java.util.List;
import java.util.Optional;

/**
 * AddVoter, RemoveVoter and UpdateVoter (KIP-853): the leader appends the whole new voter set as a VOTERS entry, in
 * effect at once on every replica that appends it, one change at a time (the previous one and this epoch's
 * LeaderChange must have committed), and answers once it commits. A replica joins only once it fetches and has
 * caught up to the high watermark. A voter is named by its id and directory id (a zero directory id on either side
 * matches any). A static quorum ({@code kraft.version} 0) refuses every change with UNSUPPORTED_VERSION, as Kafka's.
 *
 * <p>The voter's side of UpdateVoter: a follower that is a voter and finds its own entry in the voter set without
 * the directory id or endpoints it has ({@link RaftCoreConfig#localVoter()}) tells the leader, once per epoch,
 * retried after the request timeout until the set holds them.
 */
final class VoterChangeHandler {
    private final CoreContext ctx;

    VoterChangeHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    void handleAdd(InboundMessage in, AddVoterRequest request, long nowMs) {
        change(in, request.clusterId(), request.voter(), VoterChangeKind.ADD, nowMs);
    }

    void handleRemove(InboundMessage in, RemoveVoterRequest request, long nowMs) {
        Voter named = new Voter(request.voterId(), request.voterDirectoryId(), new java.util.TreeMap<>());
        change(in, request.clusterId(), named, VoterChangeKind.REMOVE, nowMs);
    }

    void handleUpdate(InboundMessage in, UpdateVoterRequest request, long nowMs) {
        EpochState state = ctx.state();
        if (ctx.checkCluster(request.clusterId()) == RaftError.NONE
                && state instanceof LeaderState
                && request.currentLeaderEpoch() != state.epoch()) {
            ctx.respond(
                    in,
                    new UpdateVoterResponse(
                            request.currentLeaderEpoch() < state.epoch()
                                    ? RaftError.FENCED_LEADER_EPOCH
                                    : RaftError.UNKNOWN_LEADER_EPOCH,
                            state.leaderId(),
                            state.epoch()));
            return;
        }
        change(in, request.clusterId(), request.voter(), VoterChangeKind.UPDATE, nowMs);
    }

    private void change(InboundMessage in, String clusterId, Voter voter, VoterChangeKind kind, long nowMs) {
        RaftError error = ctx.checkCluster(clusterId);
        String message = null;
        EpochState state = ctx.state();
        VoterSet voters = ctx.voters();
        long highWatermark = ctx.commits.highWatermark();
        int voterId = voter.id();
        Optional<Voter> current = voters.voter(voterId);
        if (error == RaftError.NONE && !(state instanceof LeaderState)) {
            error = RaftError.NOT_LEADER_OR_FOLLOWER;
        }
        if (error == RaftError.NONE) {
            LeaderState leader = (LeaderState) state;
            if (ctx.config.kraftVersion() < 1) {
                error = RaftError.UNSUPPORTED_VERSION;
                message = "the voters of this quorum are static (kraft.version 0): they change only in configuration";
            } else if (!ctx.quorum.isVoter()) {
                error = RaftError.REQUEST_TIMED_OUT;
                message = "this leader is being removed from the voter set";
            } else if (highWatermark <= leader.epochStartOffset
                    || ctx.log.history.lastChangeOffset() >= highWatermark
                    || leader.pendingVoterChange != null) {
                error = RaftError.REQUEST_TIMED_OUT;
                message = "a voter change or this epoch's start is not committed yet";
            } else if (kind == VoterChangeKind.ADD && current.isPresent()) {
                error = RaftError.DUPLICATE_VOTER;
                message = "replica " + voterId + " is already a voter";
            } else if (kind == VoterChangeKind.ADD && voters.size() >= VoterSet.MAX_VOTERS) {
                error = RaftError.INVALID_REQUEST;
                message = "at most " + VoterSet.MAX_VOTERS + " voters";
            } else if (kind == VoterChangeKind.ADD
                    && !new Voter(voterId, leader.fetchedDirectoryId(voterId), new java.util.TreeMap<>())
                            .matchesDirectory(voter.directoryId())) {
                error = RaftError.REQUEST_TIMED_OUT;
                message = "replica " + voterId + " fetches with directory id " + leader.fetchedDirectoryId(voterId)
                        + ", not " + voter.directoryId();
            } else if (kind == VoterChangeKind.ADD
                    && !leader.isCaughtUp(voterId, highWatermark, nowMs, ctx.config.fetchTimeoutMs())) {
                error = RaftError.REQUEST_TIMED_OUT;
                message = "replica " + voterId + " does not fetch from the leader or has not caught up";
            } else if (kind != VoterChangeKind.ADD
                    && (current.isEmpty() || !current.get().matchesDirectory(voter.directoryId()))) {
                error = RaftError.VOTER_NOT_FOUND;
                message = "no voter " + voterId + " with directory id " + voter.directoryId();
            } else if (kind == VoterChangeKind.REMOVE && voters.size() == 1) {
                error = RaftError.INVALID_REQUEST;
                message = "the last voter cannot be removed";
            }
        }
        if (error != RaftError.NONE) {
            ctx.respond(in, response(kind, error, message));
            return;
        }
        LeaderState leader = (LeaderState) state;
        VoterSet next;
        if (kind == VoterChangeKind.ADD) {
            next = voters.with(voter);
        } else if (kind == VoterChangeKind.REMOVE) {
            next = voters.without(voterId);
        } else {
            Voter updated = new Voter(
                    voterId,
                    voter.hasDirectoryId() ? voter.directoryId() : current.get().directoryId(),
                    voter.endpoints().isEmpty() ? current.get().endpoints() : voter.endpoints());
            if (updated.equals(current.get())) {
                ctx.respond(in, response(kind, RaftError.NONE, null)); // nothing to change
                return;
            }
            next = voters.with(updated);
        }
        long offset = ctx.log.endOffset();
        ctx.log.append(List.of(new LogEntry(offset, leader.epoch(), EntryType.VOTERS, next.encode())));
        leader.pendingVoterChange = new PendingVoterChange(in.sourceId(), in.correlationId(), offset, kind);
    }

    /** Answers the change in flight once the high watermark passed it. */
    void completeCommitted(LeaderState leader) {
        PendingVoterChange pending = leader.pendingVoterChange;
        if (pending != null && ctx.commits.highWatermark() > pending.offset()) {
            leader.pendingVoterChange = null;
            ctx.respond(pending.sourceId(), pending.correlationId(), response(pending.kind(), RaftError.NONE, null));
        }
    }

    /** A follower that is a voter announces its own directory id and endpoints when the voter set lacks them. */
    void maybeSendUpdate(FollowerState follower, long nowMs) {
        if (ctx.config.kraftVersion() < 1 || nowMs < follower.nextUpdateVoterAtMs) {
            return;
        }
        Voter local = ctx.config.localVoter();
        Optional<Voter> listed = ctx.voters().voter(ctx.nodeId());
        if (listed.isEmpty()
                || listed.get().equals(local)
                || (local.endpoints().isEmpty() && !local.hasDirectoryId())
                || ctx.pending.hasPending(follower.leaderId(), UpdateVoterRequest.class)) {
            return;
        }
        follower.nextUpdateVoterAtMs = nowMs + ctx.config.requestTimeoutMs();
        ctx.send(follower.leaderId(), new UpdateVoterRequest(ctx.config.clusterId(), follower.epoch(), local), nowMs);
    }

    private RaftResponse response(VoterChangeKind kind, RaftError error, String message) {
        EpochState state = ctx.state();
        return switch (kind) {
            case ADD -> new AddVoterResponse(error, message, state.leaderId(), state.epoch());
            case REMOVE -> new RemoveVoterResponse(error, message, state.leaderId(), state.epoch());
            case UPDATE -> new UpdateVoterResponse(error, state.leaderId(), state.epoch());
        };
    }
}
