package io.varve.raft.core;

import static io.varve.raft.core.message.RaftMessage.NO_ID;

import io.varve.raft.core.LeaderState.ParkedFetch;
import io.varve.raft.core.message.EndQuorumEpochRequest;
import io.varve.raft.core.message.EndQuorumEpochResponse;
import io.varve.raft.core.message.FetchResponse;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.RaftError;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * EndQuorumEpoch: a leader resigns (on request, or because check-quorum failed) and tells the voters,
 * best successor first; the first successor starts its election at once, the others after a backoff
 * that grows with their rank.
 */
final class EndQuorumEpochHandler {
    private final CoreContext ctx;

    EndQuorumEpochHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    /** The leader gives up its epoch. */
    void resign(long nowMs) {
        LeaderState leader = (LeaderState) ctx.state();
        List<Integer> successors = leader.votersByProgress(ctx.voters());
        ctx.pending.clear();
        // A parked fetch would otherwise never be answered, and a connection answers in order: the fetcher's next
        // requests (its pre-vote, its vote) would wait behind it until the request timeout.
        List<ParkedFetch> parked = new ArrayList<>(leader.parked.values());
        parked.sort(Comparator.comparingInt(ParkedFetch::sourceId));
        leader.parked.clear();
        for (ParkedFetch fetch : parked) {
            ctx.respond(
                    fetch.sourceId(),
                    fetch.correlationId(),
                    FetchResponse.error(RaftError.NOT_LEADER_OR_FOLLOWER, NO_ID, leader.epoch()));
        }
        ctx.quorum.transitionToResigned(successors, nowMs);
        for (int voter : successors) {
            ctx.send(
                    voter,
                    new EndQuorumEpochRequest(ctx.config.clusterId(), leader.epoch(), ctx.nodeId(), successors),
                    nowMs);
        }
    }

    void handleRequest(InboundMessage in, EndQuorumEpochRequest request, long nowMs) {
        RaftError error = ctx.checkCluster(request);
        if (error == RaftError.NONE && request.leaderEpoch() < ctx.epoch()) {
            error = RaftError.FENCED_LEADER_EPOCH;
        }
        if (error == RaftError.NONE) {
            if (request.leaderEpoch() > ctx.epoch()) {
                ctx.observeLeader(request.leaderEpoch(), NO_ID, nowMs);
            }
            Role role = ctx.quorum.role();
            boolean leaderGone =
                    ctx.state().leaderId() == request.leaderId() || ctx.state().leaderId() == NO_ID;
            if (request.leaderId() != ctx.nodeId()
                    && leaderGone
                    && (role == Role.FOLLOWER || role == Role.UNATTACHED || role == Role.PROSPECTIVE)) {
                ctx.becomeUnattached(
                        ctx.epoch(), NO_ID, successorDeadlineMs(request.preferredSuccessors(), nowMs), nowMs);
            }
        }
        EpochState state = ctx.state();
        ctx.respond(in, new EndQuorumEpochResponse(error, state.leaderId(), state.epoch()));
    }

    private long successorDeadlineMs(List<Integer> successors, long nowMs) {
        int rank = successors.indexOf(ctx.nodeId());
        if (rank < 0) {
            return nowMs + ctx.quorum.randomElectionTimeoutMs();
        }
        if (rank == 0) {
            return nowMs;
        }
        long backoffMs = (long) ctx.config.retryBackoffMs() << Math.min(rank, 20);
        return nowMs + Math.min(backoffMs, ctx.config.electionBackoffMaxMs());
    }

    void handleResponse(InboundMessage in, EndQuorumEpochResponse response, long nowMs) {}
}
