package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import io.varve.metadata.controller.cluster.BrokerHeartbeatRequest;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerHeartbeatResponseData;
import org.apache.kafka.common.protocol.ApiMessage;

/** BrokerHeartbeat (controller side): keeps a broker's session, unfences it once caught up, runs controlled shutdown. */
public final class BrokerHeartbeatHandler implements ApiHandler {
    private final QuorumController controller;

    public BrokerHeartbeatHandler(QuorumController controller) {
        this.controller = controller;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        BrokerHeartbeatRequestData data = request.body();
        return controller
                .brokerHeartbeat(new BrokerHeartbeatRequest(
                        data.brokerId(),
                        data.brokerEpoch(),
                        data.currentMetadataOffset(),
                        data.wantFence(),
                        data.wantShutDown()))
                .thenApply(reply -> new BrokerHeartbeatResponseData()
                        .setErrorCode(reply.error().code())
                        .setIsCaughtUp(reply.isCaughtUp())
                        .setIsFenced(reply.isFenced())
                        .setShouldShutDown(reply.shouldShutDown()));
    }
}
