package io.varve.raft.core;

import io.varve.raft.core.message.DescribeQuorumRequest;
import io.varve.raft.core.message.DescribeQuorumResponse;
import io.varve.raft.core.message.InboundMessage;
import io.varve.raft.core.message.RaftError;
import java.util.List;

/**
 * DescribeQuorum: the leader's view of every voter's and observer's progress (kafka-metadata-quorum), with each
 * voter's directory id and the endpoints the voter set holds. Any other replica answers NOT_LEADER_OR_FOLLOWER
 * with the leader it knows, as Kafka's do.
 */
final class DescribeQuorumHandler {
    private final CoreContext ctx;

    DescribeQuorumHandler(CoreContext ctx) {
        this.ctx = ctx;
    }

    void handleRequest(InboundMessage in, DescribeQuorumRequest request, long nowMs) {
        EpochState state = ctx.state();
        if (!(state instanceof LeaderState leader)) {
            ctx.respond(
                    in,
                    new DescribeQuorumResponse(
                            RaftError.NOT_LEADER_OR_FOLLOWER,
                            state.leaderId(),
                            state.epoch(),
                            -1,
                            List.of(),
                            List.of()));
            return;
        }
        ctx.respond(
                in,
                new DescribeQuorumResponse(
                        RaftError.NONE,
                        ctx.nodeId(),
                        leader.epoch(),
                        ctx.commits.highWatermark(),
                        leader.describe(ctx.voters(), true, ctx.log.endOffset(), nowMs),
                        leader.describe(ctx.voters(), false, ctx.log.endOffset(), nowMs),
                        ctx.voters().voters().values().stream()
                                .filter(voter -> !voter.endpoints().isEmpty())
                                .toList()));
    }
}
