package io.varve.metadata.image;

import io.varve.metadata.record.ConfigResourceType;
import java.util.Objects;

/** A configurable resource: a topic by name, or a broker by id ("" for the cluster default). */
public record ConfigResource(ConfigResourceType type, String name) {

    public ConfigResource {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(name, "name");
    }

    public static ConfigResource topic(String topicName) {
        return new ConfigResource(ConfigResourceType.TOPIC, topicName);
    }

    public static ConfigResource group(String groupId) {
        return new ConfigResource(ConfigResourceType.GROUP, groupId);
    }

    public static ConfigResource broker(int brokerId) {
        return new ConfigResource(ConfigResourceType.BROKER, Integer.toString(brokerId));
    }
}
