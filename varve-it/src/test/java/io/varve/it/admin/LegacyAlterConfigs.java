package io.varve.it.admin;

import io.varve.it.RawClient;
import io.varve.it.TestBroker;
import java.io.IOException;
import java.util.Map;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.AlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.AlterConfigsResponseData;

/** The legacy AlterConfigs on the wire: kafka-clients 4.x Admin no longer sends it, older clients and tools still do. */
final class LegacyAlterConfigs {

    private LegacyAlterConfigs() {}

    static AlterConfigsResource resource(ConfigResource.Type type, String name, Map<String, String> configs) {
        AlterConfigsResource resource =
                new AlterConfigsResource().setResourceType(type.id()).setResourceName(name);
        configs.forEach((key, value) ->
                resource.configs().add(new AlterableConfig().setName(key).setValue(value)));
        return resource;
    }

    static AlterConfigsResponseData send(
            TestBroker broker, short version, boolean validateOnly, AlterConfigsResource... resources)
            throws IOException {
        AlterConfigsRequestData request = new AlterConfigsRequestData().setValidateOnly(validateOnly);
        for (AlterConfigsResource resource : resources) {
            request.resources().add(resource);
        }
        try (RawClient client = new RawClient(broker.port())) {
            return client.send(request, version);
        }
    }
}
