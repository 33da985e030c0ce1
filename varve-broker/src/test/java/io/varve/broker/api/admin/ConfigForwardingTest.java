package io.varve.broker.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.ClientFrames;
import io.varve.broker.protocol.RequestContext;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ConfigForwardingTest {
    private static final int NODE_ID = 1;
    private static final byte TOPIC = 2;
    private static final byte BROKER = 4;

    private final List<IncrementalAlterConfigsRequestData> forwarded = new CopyOnWriteArrayList<>();
    /** Answers every forwarded resource NONE, as the controller would. */
    private final ApiHandler controller = request -> {
        IncrementalAlterConfigsRequestData data = request.body();
        forwarded.add(data);
        IncrementalAlterConfigsResponseData response = new IncrementalAlterConfigsResponseData();
        data.resources().forEach(r -> response.responses()
                .add(new AlterConfigsResourceResponse()
                        .setResourceType(r.resourceType())
                        .setResourceName(r.resourceName())
                        .setErrorCode(Errors.NONE.code())));
        return CompletableFuture.completedFuture(response);
    };

    private static RequestContext request(AlterConfigsResource... resources) {
        IncrementalAlterConfigsRequestData data = new IncrementalAlterConfigsRequestData();
        for (AlterConfigsResource r : resources) {
            data.resources().add(r);
        }
        short version = 1;
        return new RequestContext(
                new RequestHeaderData()
                        .setRequestApiKey(ApiKeys.INCREMENTAL_ALTER_CONFIGS.id)
                        .setRequestApiVersion(version)
                        .setClientId("admin"),
                ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                version,
                ClientFrames.asRequest(ApiKeys.INCREMENTAL_ALTER_CONFIGS, version, data),
                "PLAINTEXT",
                null,
                0);
    }

    private static AlterConfigsResource resource(byte type, String name) {
        return new AlterConfigsResource().setResourceType(type).setResourceName(name);
    }

    @Test
    void aRequestNamingOnlyThisBrokerOrTopicsIsForwardedWhole() throws Exception {
        RequestContext request = request(resource(BROKER, "1"), resource(TOPIC, "t"), resource(BROKER, ""));

        IncrementalAlterConfigsResponseData answer =
                (IncrementalAlterConfigsResponseData) ConfigForwarding.incremental(controller, NODE_ID)
                        .handle(request)
                        .get();

        assertThat(forwarded).hasSize(1);
        assertThat(forwarded.get(0).resources()).hasSize(3);
        assertThat(answer.responses()).allSatisfy(r -> assertThat(r.errorCode()).isEqualTo(Errors.NONE.code()));
    }

    @Test
    void aBrokerResourceNamingAnotherBrokerIsRefusedHereAndTheRestForwardedAnsweredInRequestOrder() throws Exception {
        RequestContext request = request(resource(TOPIC, "a"), resource(BROKER, "2"), resource(TOPIC, "b"));

        IncrementalAlterConfigsResponseData answer =
                (IncrementalAlterConfigsResponseData) ConfigForwarding.incremental(controller, NODE_ID)
                        .handle(request)
                        .get();

        assertThat(forwarded).hasSize(1);
        assertThat(forwarded.get(0).resources())
                .extracting(AlterConfigsResource::resourceName)
                .containsExactly("a", "b");
        assertThat(answer.responses())
                .extracting(AlterConfigsResourceResponse::resourceName)
                .containsExactly("a", "2", "b");
        AlterConfigsResourceResponse refused = answer.responses().get(1);
        assertThat(Errors.forCode(refused.errorCode())).isEqualTo(Errors.INVALID_REQUEST);
        assertThat(refused.errorMessage()).isEqualTo("Unexpected broker id, expected 1, but received 2");
    }

    @Test
    void aRequestWhoseEveryResourceIsRefusedNeverReachesTheController() throws Exception {
        IncrementalAlterConfigsResponseData answer =
                (IncrementalAlterConfigsResponseData) ConfigForwarding.incremental(controller, NODE_ID)
                        .handle(request(resource(BROKER, "x")))
                        .get();

        assertThat(forwarded).isEmpty();
        assertThat(answer.responses().get(0).errorMessage()).isEqualTo("Node id must be an integer, but it is: x");
    }

    @Test
    void loggerResourcesAreAnsweredByThisNodeAndNeverForwarded() throws Exception {
        byte brokerLogger = 8;
        java.util.Map<String, String> applied = new java.util.HashMap<>();
        io.varve.broker.logging.LoggerLevels loggers = new io.varve.broker.logging.LoggerLevels() {
            @Override
            public java.util.Map<String, String> levels() {
                return applied;
            }

            @Override
            public String apply(java.util.Map<String, String> changes, boolean validateOnly) {
                if (changes.containsValue("LOUD")) {
                    return "LOUD is not a level";
                }
                applied.putAll(changes);
                return null;
            }
        };
        ApiHandler handler =
                ConfigForwarding.incremental(controller, NODE_ID, ConfigForwarding.LocalCheck.NONE, loggers);

        IncrementalAlterConfigsResponseData answer = (IncrementalAlterConfigsResponseData) handler.handle(request(
                        logger(brokerLogger, "1", (byte) 0, "DEBUG"),
                        resource(TOPIC, "t"),
                        logger(brokerLogger, "2", (byte) 0, "DEBUG")))
                .get();
        assertThat(forwarded).hasSize(1);
        assertThat(forwarded.get(0).resources())
                .extracting(AlterConfigsResource::resourceType)
                .containsExactly(TOPIC);
        assertThat(answer.responses())
                .extracting(AlterConfigsResourceResponse::errorCode)
                .containsExactly(Errors.NONE.code(), Errors.NONE.code(), Errors.INVALID_REQUEST.code());
        assertThat(applied).containsExactly(java.util.Map.entry("io.varve", "DEBUG"));

        IncrementalAlterConfigsResponseData append = (IncrementalAlterConfigsResponseData)
                handler.handle(request(logger(brokerLogger, "1", (byte) 2, "INFO")))
                        .get();
        assertThat(append.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_REQUEST.code());
        IncrementalAlterConfigsResponseData loud = (IncrementalAlterConfigsResponseData)
                handler.handle(request(logger(brokerLogger, "1", (byte) 0, "LOUD")))
                        .get();
        assertThat(loud.responses().get(0).errorCode()).isEqualTo(Errors.INVALID_CONFIG.code());
        assertThat(loud.responses().get(0).errorMessage()).isEqualTo("LOUD is not a level");
        assertThat(applied).containsExactly(java.util.Map.entry("io.varve", "DEBUG"));
        assertThat(forwarded).hasSize(1);
    }

    private static AlterConfigsResource logger(byte type, String node, byte op, String level) {
        AlterConfigsResource r = resource(type, node);
        r.configs()
                .add(new IncrementalAlterConfigsRequestData.AlterableConfig()
                        .setName("io.varve")
                        .setConfigOperation(op)
                        .setValue(level));
        return r;
    }
}
