package io.varve.broker.api.admin;

import io.varve.broker.api.ApiHandler;
import io.varve.broker.protocol.RequestContext;
import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.image.MetadataImage;
import io.varve.metadata.record.ConfigResourceType;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.kafka.common.message.ListConfigResourcesRequestData;
import org.apache.kafka.common.message.ListConfigResourcesResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * ListConfigResources (v0 was ListClientMetricsResources): the names of the config resources of the types asked for
 * — topics, brokers, client-metrics subscriptions, groups with configs of their own — as {@code kafka-client-metrics --describe} and {@code
 * kafka-configs --entity-type client-metrics} list them. v0 lists client-metrics resources; at v1 an empty type list
 * means every type this broker has, and a type it has none of gets UNSUPPORTED_VERSION, as Kafka answers.
 */
public final class ListConfigResourcesHandler implements ApiHandler {
    private static final List<Byte> ALL_TYPES = List.of(
            ConfigResources.TOPIC, ConfigResources.BROKER, ConfigResources.CLIENT_METRICS, ConfigResources.GROUP);

    private final Supplier<MetadataImage> images;

    public ListConfigResourcesHandler(Supplier<MetadataImage> images) {
        this.images = images;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(RequestContext request) {
        ListConfigResourcesRequestData data = request.body();
        List<Byte> types = request.apiVersion() == 0
                ? List.of(ConfigResources.CLIENT_METRICS)
                : data.resourceTypes().isEmpty() ? ALL_TYPES : data.resourceTypes();
        ListConfigResourcesResponseData response = new ListConfigResourcesResponseData();
        for (byte type : types) {
            if (!ALL_TYPES.contains(type)) {
                return CompletableFuture.completedFuture(
                        response.setErrorCode(Errors.UNSUPPORTED_VERSION.code()).setConfigResources(List.of()));
            }
        }
        MetadataImage image = images.get();
        for (byte type : types) {
            for (String name : names(image, type)) {
                response.configResources()
                        .add(new ListConfigResourcesResponseData.ConfigResource()
                                .setResourceName(name)
                                .setResourceType(type));
            }
        }
        return CompletableFuture.completedFuture(response.setErrorCode(Errors.NONE.code()));
    }

    private static TreeSet<String> names(MetadataImage image, byte type) {
        TreeSet<String> names = new TreeSet<>();
        switch (type) {
            case ConfigResources.TOPIC ->
                names.addAll(image.topics().topicsByName().keySet());
            case ConfigResources.BROKER -> image.cluster().brokers().keySet().forEach(id -> names.add(id.toString()));
            default -> {
                // client-metrics subscriptions, or groups with configs of their own
                ConfigResourceType wanted =
                        type == ConfigResources.GROUP ? ConfigResourceType.GROUP : ConfigResourceType.CLIENT_METRICS;
                for (var e : image.configs().resources().entrySet()) {
                    ConfigResource r = e.getKey();
                    if (r.type() == wanted && !e.getValue().isEmpty()) {
                        names.add(r.name());
                    }
                }
            }
        }
        return names;
    }
}
