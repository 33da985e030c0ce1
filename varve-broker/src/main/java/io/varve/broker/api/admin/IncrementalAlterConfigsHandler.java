package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.controller.ConfigChange;
import io.varve.metadata.controller.QuorumController;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.ApiMessage;

/** IncrementalAlterConfigs (KIP-339): SET, DELETE, APPEND and SUBTRACT on topic and broker configs, validateOnly. */
public final class IncrementalAlterConfigsHandler implements ApiHandler {
    /**
     * The node id a controller's handlers take: a broker resource may name any broker (the broker that forwarded the
     * request checked that it names itself, as Kafka's broker does).
     */
    public static final int ANY_BROKER = -1;

    private final QuorumController controller;
    private final int nodeId;

    public IncrementalAlterConfigsHandler(QuorumController controller, int nodeId) {
        this.controller = controller;
        this.nodeId = nodeId;
    }

    private record Requested(AlterConfigsResource resource) implements ConfigAlteration.Requested<List<ConfigChange>> {
        @Override
        public byte type() {
            return resource.resourceType();
        }

        @Override
        public String name() {
            return resource.resourceName();
        }

        @Override
        public List<ConfigChange> changes() {
            List<ConfigChange> changes = new ArrayList<>(resource.configs().size());
            for (AlterableConfig config : resource.configs()) {
                ConfigChange.Op op = ConfigChange.Op.forId(config.configOperation());
                if (op == null) {
                    throw new InvalidRequestException(
                            "Unknown alter config operation type " + config.configOperation());
                }
                changes.add(new ConfigChange(config.name(), op, config.value()));
            }
            return changes;
        }
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        IncrementalAlterConfigsRequestData data = request.body();
        List<Requested> requested =
                data.resources().stream().map(Requested::new).toList();
        return ConfigAlteration.run(
                        requested, nodeId, changes -> controller.incrementalAlterConfigs(changes, data.validateOnly()))
                .thenApply(outcomes -> {
                    IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
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
