package io.varve.broker.api.quorum;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.broker.raft.RaftRequestDispatcher;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * DescribeQuorum, AddRaftVoter and RemoveRaftVoter on the client listener of a node whose controller runs on the
 * multi-voter stack: handed to its own Raft runtime, which answers as on the controller listener (the leader
 * describes the whole quorum and makes the change; any other replica answers NOT_LEADER_OR_FOLLOWER, which the admin
 * client retries). What {@code kafka-metadata-quorum --bootstrap-server} asks.
 */
public final class RaftAdminHandler implements ApiHandler {
    private final RaftRequestDispatcher raft;

    public RaftAdminHandler(RaftRequestDispatcher raft) {
        this.raft = raft;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        return raft.submit(request.apiKey(), request.apiVersion(), request.data());
    }
}
