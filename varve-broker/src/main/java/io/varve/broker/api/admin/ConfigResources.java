package io.varve.broker.api.admin;

import io.varve.metadata.image.ConfigResource;
import io.varve.metadata.record.ConfigResourceType;
import org.apache.kafka.common.errors.InvalidRequestException;

/** Kafka's config resource types on the wire, and the checks a broker makes on a resource before the controller sees it. */
final class ConfigResources {
    static final byte TOPIC = 2;
    static final byte BROKER = 4;
    static final byte BROKER_LOGGER = 8;
    static final byte CLIENT_METRICS = 16;
    static final byte GROUP = 32;

    private ConfigResources() {}

    /**
     * The resource an alter request names. A broker resource must be the cluster default ("") or this node,
     * as Kafka's broker requires.
     */
    static ConfigResource forAlter(byte type, String name, int nodeId) {
        return switch (type) {
            case TOPIC -> ConfigResource.topic(name);
            case BROKER -> {
                if (!name.isEmpty()) {
                    int id = parseNodeId(name, "Node id must be an integer, but it is: " + name);
                    if (nodeId != IncrementalAlterConfigsHandler.ANY_BROKER && id != nodeId) {
                        throw new InvalidRequestException(
                                "Unexpected broker id, expected " + nodeId + ", but received " + name);
                    }
                }
                yield new ConfigResource(ConfigResourceType.BROKER, name);
            }
            case CLIENT_METRICS -> new ConfigResource(ConfigResourceType.CLIENT_METRICS, name);
            case GROUP -> ConfigResource.group(name);
            case BROKER_LOGGER ->
                throw new InvalidRequestException("Varve does not support BROKER_LOGGER resources yet.");
            default -> throw new InvalidRequestException("Unknown resource type " + type);
        };
    }

    /** A BROKER_LOGGER resource names this node (Kafka's broker refuses any other name). */
    static void checkLoggerNode(String name, int nodeId) {
        int id = parseNodeId(name, "Node id must be an integer, but it is: " + name);
        if (id != nodeId) {
            throw new InvalidRequestException("Unexpected node id. Expected " + nodeId + ", but received " + name);
        }
    }

    static int parseNodeId(String name, String message) {
        try {
            return Integer.parseInt(name);
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(message);
        }
    }
}
