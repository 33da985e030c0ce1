package io.varve.broker.group;

import io.varve.broker.api.ApiRegistry;
import io.varve.broker.controller.ControllerCalls;
import java.util.function.IntSupplier;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Registers the KIP-1071 streams group APIs with the versions Kafka 4.4 serves. StreamsGroupTopologyDescription
 * Update (KIP-1331, key 93) is answered as Kafka 4.4 answers it without a topology description plugin (its default):
 * Varve keeps no topology descriptions and its heartbeat never asks for one.
 */
public final class StreamsGroupApis {
    private StreamsGroupApis() {}

    /** {@code streamsVersion}: the finalized {@code streams.version} now (0 when not finalized). */
    public static void register(
            ApiRegistry registry,
            GroupCoordinatorRuntime runtime,
            ControllerCalls controller,
            IntSupplier streamsVersion) {
        StreamsGroupHandlers streams = new StreamsGroupHandlers(runtime, controller, streamsVersion);
        registry.register(ApiKeys.STREAMS_GROUP_HEARTBEAT, 0, 1, streams::heartbeat)
                .register(ApiKeys.STREAMS_GROUP_DESCRIBE, 0, 1, streams::describe)
                .register(
                        ApiKeys.STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE,
                        0,
                        0,
                        new StreamsTopologyDescriptionHandler(streamsVersion));
    }
}
