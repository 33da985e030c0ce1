package io.varve.broker.api;

import java.util.concurrent.CompletableFuture;

import io.varve.broker.protocol.RequestContext;
import io.varve.broker.replica.ProducerIdManager;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * InitProducerId for idempotent producers: a fresh producer id (from a block allocated through the metadata log)
 * with epoch 0. Transactional ids need the transaction coordinator, which this broker does not run yet.
 */
public final class InitProducerIdHandler implements ApiHandler {
    private final ProducerIdManager producerIds;

    public InitProducerIdHandler(ProducerIdManager producerIds) {
        this.producerIds = producerIds;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        InitProducerIdRequestData data = request.body();
        if (data.transactionalId() != null) {
            return CompletableFuture.completedFuture(new InitProducerIdResponseData()
                    .setErrorCode(Errors.NOT_COORDINATOR.code()).setProducerId(-1).setProducerEpoch((short) -1));
        }
        return producerIds.nextProducerId().thenApply(id -> new InitProducerIdResponseData()
                .setErrorCode(Errors.NONE.code())
                .setProducerId(id)
                .setProducerEpoch((short) 0));
    }
}
