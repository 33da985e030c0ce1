package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * AllocateProducerIds (controller side): a block of producer ids for a broker. The request names no size: the
 * controller's {@code producer.id.block.size} (Kafka's controller hands out 1000 at a time) decides it.
 */
public final class AllocateProducerIdsHandler implements ApiHandler {
    private final QuorumController controller;
    private final int blockSize;

    public AllocateProducerIdsHandler(QuorumController controller, int blockSize) {
        this.controller = controller;
        this.blockSize = blockSize;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        AllocateProducerIdsRequestData data = request.body();
        return controller
                .allocateProducerIds(data.brokerId(), blockSize)
                .thenApply(firstId -> new AllocateProducerIdsResponseData()
                        .setErrorCode(Errors.NONE.code())
                        .setProducerIdStart(firstId)
                        .setProducerIdLen(blockSize));
    }
}
