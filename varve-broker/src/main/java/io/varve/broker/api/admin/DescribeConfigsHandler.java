package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.config.BrokerConfigLayers;
import io.varve.broker.config.BrokerConfigLayers.KeyInfo;
import io.varve.broker.config.ConfigDef;
import io.varve.broker.logging.LoggerLevels;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.config.ConfigKey;
import io.varve.metadata.config.ConfigLayers;
import io.varve.metadata.config.GroupConfigDef;
import io.varve.metadata.config.ResolvedConfig;
import io.varve.metadata.config.TopicConfigDef;
import io.varve.metadata.controller.TopicNames;
import io.varve.metadata.image.MetadataImage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsSynonym;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DescribeConfigs: every config of a topic (its overrides over the broker's defaults) or of this
 * broker (dynamic over static over defaults), or the cluster-wide dynamic defaults (broker ""), or this node's
 * logger levels (BROKER_LOGGER), or a group's own settings over the broker-wide ones (GROUP), with
 * Kafka's sources, synonyms, read-only flags, types and, on request, documentation. Sensitive values
 * are never returned.
 */
public final class DescribeConfigsHandler implements ApiHandler {
    private final int nodeId;
    private final BrokerConfigLayers brokerConfigs;
    private final Supplier<MetadataImage> images;
    private final LoggerLevels loggers;

    public DescribeConfigsHandler(int nodeId, BrokerConfigLayers brokerConfigs, Supplier<MetadataImage> images) {
        this(nodeId, brokerConfigs, images, LoggerLevels.NONE);
    }

    public DescribeConfigsHandler(
            int nodeId, BrokerConfigLayers brokerConfigs, Supplier<MetadataImage> images, LoggerLevels loggers) {
        this.nodeId = nodeId;
        this.brokerConfigs = brokerConfigs;
        this.images = images;
        this.loggers = loggers;
    }

    /** How one entry is rendered, fixed per request. */
    private record Rendering(boolean synonyms, boolean documentation) {}

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        DescribeConfigsRequestData data = request.body();
        MetadataImage image = images.get();
        ConfigLayers layers = brokerConfigs.layers(image);
        Rendering rendering = new Rendering(data.includeSynonyms(), data.includeDocumentation());
        DescribeConfigsResponseData response = new DescribeConfigsResponseData();
        for (DescribeConfigsResource resource : data.resources()) {
            DescribeConfigsResult result = new DescribeConfigsResult()
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName());
            try {
                List<DescribeConfigsResourceResult> configs =
                        switch (resource.resourceType()) {
                            case ConfigResources.TOPIC ->
                                topicConfigs(image, layers, resource.resourceName(), rendering);
                            case ConfigResources.BROKER -> brokerConfigs(layers, resource.resourceName(), rendering);
                            case ConfigResources.CLIENT_METRICS -> clientMetricsConfigs(image, resource.resourceName());
                            case ConfigResources.BROKER_LOGGER -> loggerConfigs(resource.resourceName());
                            case ConfigResources.GROUP ->
                                groupConfigs(image, layers, resource.resourceName(), rendering);
                            default ->
                                throw new InvalidRequestException(
                                        "Unsupported resource type: " + resource.resourceType());
                        };
                List<String> wanted = resource.configurationKeys();
                if (wanted != null && !wanted.isEmpty()) {
                    configs = configs.stream()
                            .filter(c -> wanted.contains(c.name()))
                            .toList();
                }
                result.setErrorCode(Errors.NONE.code()).setConfigs(new ArrayList<>(configs));
            } catch (ApiException e) {
                result.setErrorCode(Errors.forException(e).code())
                        .setErrorMessage(e.getMessage())
                        .setConfigs(new ArrayList<>());
            }
            response.results().add(result);
        }
        return CompletableFuture.completedFuture(response);
    }

    private static List<DescribeConfigsResourceResult> topicConfigs(
            MetadataImage image, ConfigLayers layers, String topic, Rendering rendering) {
        Optional<String> illegal = TopicNames.validate(topic);
        if (illegal.isPresent()) {
            throw new InvalidTopicException(illegal.get());
        }
        if (image.topics().getTopic(topic) == null) {
            throw new UnknownTopicOrPartitionException("The topic '" + topic + "' does not exist.");
        }
        Map<String, String> overrides = image.configs().topicConfigs(topic);
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        for (ConfigKey key : TopicConfigDef.keys().values()) {
            configs.add(entry(
                    layers.topic(key.name(), overrides),
                    false,
                    false,
                    typeCode(ConfigDef.Type.valueOf(key.type().name())),
                    key.documentation(),
                    rendering));
        }
        return configs;
    }

    /**
     * A group's configs: every key Kafka describes for a group, its override (DYNAMIC_GROUP_CONFIG) or the broker-wide
     * value it falls back to. A group needs no members or offsets to have configs, as in Kafka.
     */
    private static List<DescribeConfigsResourceResult> groupConfigs(
            MetadataImage image, ConfigLayers layers, String group, Rendering rendering) {
        if (group.isEmpty()) {
            throw new InvalidRequestException("Group name must not be empty");
        }
        Map<String, String> overrides = image.configs().configs(io.varve.metadata.image.ConfigResource.group(group));
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        for (GroupConfigDef.GroupKey key : GroupConfigDef.keys().values()) {
            if (key.internal()) {
                continue;
            }
            ConfigKey def = key.key();
            configs.add(entry(
                    layers.group(def.name(), key.brokerSynonym(), def.defaultValue(), overrides),
                    false,
                    false,
                    typeCode(ConfigDef.Type.valueOf(def.type().name())),
                    def.documentation(),
                    rendering));
        }
        return configs;
    }

    /** Kafka's ConfigSource code of a client-metrics key. */
    private static final byte CLIENT_METRICS_CONFIG_SOURCE = 7;

    /** A client-metrics subscription's stored keys (Kafka shows only what was set). */
    private static List<DescribeConfigsResourceResult> clientMetricsConfigs(MetadataImage image, String name) {
        if (name.isEmpty()) {
            throw new InvalidRequestException("Subscription name can't be empty");
        }
        Map<String, String> stored = image.configs()
                .configs(new io.varve.metadata.image.ConfigResource(
                        io.varve.metadata.record.ConfigResourceType.CLIENT_METRICS, name));
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        new java.util.TreeMap<>(stored)
                .forEach((key, value) -> configs.add(new DescribeConfigsResourceResult()
                        .setName(key)
                        .setValue(value)
                        .setReadOnly(false)
                        .setIsSensitive(false)
                        .setConfigSource(CLIENT_METRICS_CONFIG_SOURCE)
                        .setConfigType(typeCode(
                                io.varve.metadata.config.ClientMetricsConfigDef.isList(key)
                                        ? ConfigDef.Type.LIST
                                        : ConfigDef.Type.INT))));
        return configs;
    }

    /** Kafka's ConfigSource code of a logger level. */
    private static final byte BROKER_LOGGER_CONFIG_SOURCE = 6;

    /** Every logger of this node with its effective level (BROKER_LOGGER names the node, as Kafka's broker checks). */
    private List<DescribeConfigsResourceResult> loggerConfigs(String name) {
        ConfigResources.checkLoggerNode(name, nodeId);
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        loggers.levels()
                .forEach((logger, level) -> configs.add(new DescribeConfigsResourceResult()
                        .setName(logger)
                        .setValue(level)
                        .setReadOnly(false)
                        .setIsSensitive(false)
                        .setConfigSource(BROKER_LOGGER_CONFIG_SOURCE)
                        .setConfigType(typeCode(ConfigDef.Type.STRING))));
        return configs;
    }

    private List<DescribeConfigsResourceResult> brokerConfigs(ConfigLayers layers, String name, Rendering rendering) {
        List<DescribeConfigsResourceResult> configs = new ArrayList<>();
        if (name.isEmpty()) {
            for (String key : layers.dynamicDefault().keySet().stream().sorted().toList()) {
                configs.add(brokerEntry(BrokerConfigLayers.keyInfo(key), layers.clusterDefault(key), rendering));
            }
            return configs;
        }
        int id = ConfigResources.parseNodeId(name, "Broker id must be an integer, but it is: " + name);
        if (id != nodeId) {
            throw new InvalidRequestException(
                    "Unexpected broker id, expected " + nodeId + " or empty string, but received " + name);
        }
        for (KeyInfo key : brokerConfigs.keys(layers)) {
            configs.add(brokerEntry(key, layers.broker(key.name()), rendering));
        }
        return configs;
    }

    private static DescribeConfigsResourceResult brokerEntry(KeyInfo key, ResolvedConfig config, Rendering rendering) {
        return entry(config, !key.dynamic(), key.sensitive(), typeCode(key.type()), key.documentation(), rendering);
    }

    private static DescribeConfigsResourceResult entry(
            ResolvedConfig config,
            boolean readOnly,
            boolean sensitive,
            byte configType,
            String documentation,
            Rendering rendering) {
        List<DescribeConfigsSynonym> synonyms = new ArrayList<>();
        if (rendering.synonyms()) {
            config.synonyms()
                    .forEach(s -> synonyms.add(new DescribeConfigsSynonym()
                            .setName(s.name())
                            .setValue(sensitive ? null : s.value())
                            .setSource(s.source().code())));
        }
        return new DescribeConfigsResourceResult()
                .setName(config.name())
                .setValue(sensitive ? null : config.value())
                .setReadOnly(readOnly)
                .setConfigSource(config.source().code())
                .setIsSensitive(sensitive)
                .setSynonyms(synonyms)
                .setConfigType(configType)
                .setDocumentation(rendering.documentation() ? documentation : null);
    }

    /** Kafka's DescribeConfigs config type codes; 0 (UNKNOWN) for a key of unknown type. */
    private static byte typeCode(ConfigDef.Type type) {
        if (type == null) {
            return 0;
        }
        return switch (type) {
            case BOOLEAN -> 1;
            case STRING -> 2;
            case INT -> 3;
            case LONG -> 5;
            case DOUBLE -> 6;
            case LIST -> 7;
            case CLASS -> 8;
            case PASSWORD -> 9;
        };
    }
}
