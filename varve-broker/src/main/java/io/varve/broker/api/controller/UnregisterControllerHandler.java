package io.varve.broker.api.controller;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.UnregisterControllerRequestData;
import org.apache.kafka.common.message.UnregisterControllerResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * UnregisterController (KIP-1312, Kafka 4.4; {@code kafka-metadata-quorum remove-controller --unregister}) on the
 * active controller. Kafka removes a controller's ControllerRegistrationRecord so a stale one no longer holds back
 * feature upgrades. Varve keeps no controller registrations (its controllers are the quorum's voters and the
 * configured controller endpoints; feature checks look at brokers' registrations only), so there is never one to
 * remove: the answer is Kafka's for a controller without a registration, BROKER_ID_NOT_REGISTERED, with a message
 * saying why.
 */
public final class UnregisterControllerHandler implements ApiHandler {

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        UnregisterControllerRequestData data = request.body();
        return CompletableFuture.completedFuture(new UnregisterControllerResponseData()
                .setErrorCode(Errors.BROKER_ID_NOT_REGISTERED.code())
                .setErrorMessage("Controller " + data.controllerId()
                        + " has no registration to remove: Varve keeps no controller registrations, so none can be"
                        + " stale (remove a voter with remove-controller)"));
    }
}
