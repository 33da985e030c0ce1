package io.varve.raft.core;

import io.varve.raft.core.message.BeginQuorumEpochRequest;
import io.varve.raft.core.message.BeginQuorumEpochResponse;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.RaftError;

/** BeginQuorumEpoch: a new leader announces its epoch to a voter, which starts following it. */
final class BeginQuorumEpochHandler {
    private final CoreContext ctx;

    BeginQuorumEpochHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    void handleRequest(InboundMessage in, BeginQuorumEpochRequest request, long nowMs) {
        RaftError error = ctx.checkCluster(request);
        if (error == RaftError.NONE && request.voterId() != ctx.nodeId()) {
            error = RaftError.INCONSISTENT_VOTER_SET;
        }
        if (error == RaftError.NONE && request.leaderEpoch() < ctx.epoch()) {
            error = RaftError.FENCED_LEADER_EPOCH;
        }
        if (error == RaftError.NONE) {
            ctx.observeLeader(request.leaderEpoch(), request.leaderId(), nowMs);
            if (ctx.state() instanceof FollowerState follower && follower.leaderId() == request.leaderId()) {
                follower.leaderContact(nowMs);
            }
        }
        EpochState state = ctx.state();
        ctx.respond(in, new BeginQuorumEpochResponse(error, state.leaderId(), state.epoch()));
    }

    /** Nothing beyond what every response does (a newer epoch it names was already adopted). */
    void handleResponse(InboundMessage in, BeginQuorumEpochResponse response, long nowMs) {}
}
