package io.varve.broker.group;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntSupplier;
import org.apache.kafka.common.message.StreamsGroupTopologyDescriptionUpdateResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * StreamsGroupTopologyDescriptionUpdate (KIP-1331, key 93) v0 as Kafka 4.4 answers it by default: Kafka only stores
 * a streams group's topology description through a broker plugin ({@code
 * group.streams.topology.description.plugin.class}, unset by default), and without one its heartbeats never ask
 * for a description and a push is refused with UNSUPPORTED_VERSION. Varve has no such plugin and gives Kafka's refusal,
 * so a Kafka Streams 4.4 client that pushes anyway learns the broker keeps none; StreamsGroupDescribe v1 reports the
 * description NOT_STORED.
 */
final class StreamsTopologyDescriptionHandler implements ApiHandler {
    static final String NO_PLUGIN = "The broker has no streams group topology description plugin configured.";

    private final IntSupplier streamsVersion;

    StreamsTopologyDescriptionHandler(IntSupplier streamsVersion) {
        this.streamsVersion = streamsVersion;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        if (streamsVersion.getAsInt() < 1) {
            return answer(
                    Errors.UNSUPPORTED_VERSION,
                    "The cluster does not have streams.version 1 finalized: streams groups are not enabled.");
        }
        // Kafka checks for its plugin before anything else in the request
        return answer(Errors.UNSUPPORTED_VERSION, NO_PLUGIN);
    }

    private static CompletableFuture<ApiMessage> answer(Errors error, String message) {
        return CompletableFuture.completedFuture(new StreamsGroupTopologyDescriptionUpdateResponseData()
                .setErrorCode(error.code())
                .setErrorMessage(message));
    }
}
