package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.QuorumController;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.AlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiMessage;

/** The legacy AlterConfigs: each named resource's configs become exactly the given set (unnamed keys are deleted). */
public final class AlterConfigsHandler implements ApiHandler {
    private final QuorumController controller;
    private final int nodeId;

    public AlterConfigsHandler(QuorumController controller, int nodeId) {
        this.controller = controller;
        this.nodeId = nodeId;
    }

    private record Requested(AlterConfigsResource resource) implements ConfigAlteration.Requested<Map<String, String>> {
        @Override
        public byte type() {
            return resource.resourceType();
        }

        @Override
        public String name() {
            return resource.resourceName();
        }

        @Override
        public Map<String, String> changes() {
            Map<String, String> configs = new HashMap<>();
            for (AlterableConfig config : resource.configs()) {
                if (configs.containsKey(config.name())) {
                    throw new InvalidRequestException("Error due to duplicate config keys");
                }
                configs.put(config.name(), config.value());
            }
            return configs;
        }
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        AlterConfigsRequestData data = request.body();
        List<Requested> requested =
                data.resources().stream().map(Requested::new).toList();
        return ConfigAlteration.run(requested, nodeId, configs -> controller.alterConfigs(configs, data.validateOnly()))
                .thenApply(outcomes -> {
                    AlterConfigsResponseData response = new AlterConfigsResponseData();
                    outcomes.forEach(o -> response.responses()
                            .add(new AlterConfigsResourceResponse()
                                    .setResourceType(o.type())
                                    .setResourceName(o.name())
                                    .setErrorCode(o.error().code())
                                    .setErrorMessage(o.message())));
                    return response;
                });
    }
}
