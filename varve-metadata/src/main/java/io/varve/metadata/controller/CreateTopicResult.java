package io.varve.metadata.controller;

import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome for one requested topic. On error, {@code topicId} is {@link Uuid#ZERO_UUID},
 * {@code numPartitions} and {@code replicationFactor} are -1 and {@code configs} is empty.
 *
 * @param configs the topic-level overrides in effect for the new topic
 */
public record CreateTopicResult(
        String name,
        Errors error,
        String errorMessage,
        Uuid topicId,
        int numPartitions,
        short replicationFactor,
        Map<String, String> configs) {

    static CreateTopicResult failure(String name, Errors error, String message) {
        return new CreateTopicResult(name, error, message, Uuid.ZERO_UUID, -1, (short) -1, Map.of());
    }
}
